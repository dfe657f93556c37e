import { existsSync } from 'node:fs';
import t from 'tap';
import { findAnvilBinary, startAnvil } from './start-anvil.ts';

const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
};

t.test('finds the binary of the npm package', async (t) => {
  t.ok(existsSync(findAnvilBinary()));
});

t.test('starts on free ports with the options given; stop ends it', async (t) => {
  const [a, b] = await Promise.all([startAnvil({ chainId: 4242 }), startAnvil({ noMining: true })]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  t.not(a.port, b.port);
  t.equal(a.url, `http://127.0.0.1:${a.port}`);
  t.equal(await rpc(a.url, 'eth_chainId'), '0x1092');
  t.equal(await rpc(b.url, 'anvil_getAutomine'), false, '--no-mining');
  await rpc(b.url, 'eth_sendTransaction', [
    { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', value: '0x1' },
  ]);
  t.equal(await rpc(b.url, 'eth_blockNumber'), '0x0', 'nothing mined by itself');

  await a.stop();
  await a.stop();
  await t.rejects(rpc(a.url, 'eth_chainId'), 'gone after stop');
});

t.test('a start failure says what anvil said', async (t) => {
  await t.rejects(startAnvil({ args: ['--no-such-flag'] }), { code: 'ANVIL_START_FAILED', message: /anvil did not start: .*--no-such-flag/s });
});
