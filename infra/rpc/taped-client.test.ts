import t from 'tap';
import type { RecordedAnswer, RecordedCall } from '../../domain/testing/chain-recording.ts';
import type { RpcCall, RpcClient } from './create-rpc-client.ts';
import { RpcError, RpcUnreachableError } from './rpc-error.ts';
import type { RpcSettled } from './rpc-settled.ts';
import { tapedClient, type TapeMode } from './taped-client.ts';

/** An endpoint stand-in: answers each method as told, counting what it was asked. */
function endpoint(answers: Record<string, () => RpcSettled>) {
  const asked: string[] = [];
  const settle = (c: RpcCall) => {
    asked.push(c.method);
    return answers[c.method]!();
  };
  const client: RpcClient = {
    endpoints: ['http://node'],
    distrust: () => undefined,
    batchSettled: async (calls) => calls.map(settle),
    batchEach: async (calls) => [
      { endpoint: 'http://down', failure: 'refused' },
      { endpoint: 'http://node', settled: calls.map(settle) },
    ],
    request: async () => undefined as never,
    batch: async () => [],
  };
  return { client, asked };
}

const reverted = () => new RpcError('eth_call', { code: 3, message: 'execution reverted', data: '0x08c3' }, { endpoint: 'http://node' });

t.test('record: results and JSON-RPC errors are kept as the endpoint sent them; calls that reached no endpoint are not', async (t) => {
  const { client } = endpoint({
    eth_chainId: () => ({ ok: true, value: '0x1' }),
    eth_call: () => ({ ok: false, error: reverted() }),
    eth_getTransactionReceipt: () => ({ ok: true, value: undefined }),
  });
  const kept: [RecordedCall, RecordedAnswer][] = [];
  const taped = tapedClient(client, () => ({ kind: 'record', keep: (call, answer) => kept.push([call, answer]) }));
  t.equal(await taped.request('eth_chainId'), '0x1');
  t.match(await taped.request('eth_call', [{ to: '0xaa' }, '0x5']).catch((e: unknown) => e), { rpcCode: 3 });
  await taped.batch([{ method: 'eth_getTransactionReceipt', params: ['0xbb'] }]);
  t.same(kept, [
    [{ method: 'eth_chainId', params: [] }, { result: '0x1' }],
    [{ method: 'eth_call', params: [{ to: '0xaa' }, '0x5'] }, { error: { code: 3, message: 'execution reverted', data: '0x08c3' } }],
    [{ method: 'eth_getTransactionReceipt', params: ['0xbb'] }, { result: null }],
  ]);

  const down = tapedClient(
    {
      ...client,
      batchSettled: async () => {
        throw new RpcUnreachableError('eth_chainId', 1, [{ endpoint: 'http://node', error: 'refused' }]);
      },
    },
    () => ({ kind: 'record', keep: (call, answer) => kept.push([call, answer]) }),
  );
  await t.rejects(down.request('eth_chainId'), { code: 'RPC_UNREACHABLE' });
  t.equal(kept.length, 3, 'nothing kept of a call no endpoint answered');
});

t.test('record: of a call asked of every endpoint, the first answer is kept', async (t) => {
  const { client } = endpoint({ eth_chainId: () => ({ ok: true, value: '0x1' }) });
  const kept: RecordedAnswer[] = [];
  const taped = tapedClient(client, () => ({ kind: 'record', keep: (_call, answer) => kept.push(answer) }));
  const answers = await taped.batchEach([{ method: 'eth_chainId' }]);
  t.equal(answers.length, 2, "every endpoint's answer still comes back");
  t.same(kept, [{ result: '0x1' }]);
});

t.test('replay: answers from the recording, never the endpoint; copies; errors as RpcErrors', async (t) => {
  const { client, asked } = endpoint({});
  const recorded: Record<string, RecordedAnswer> = {
    eth_getBlockByNumber: { result: { number: '0x5', transactions: [] } },
    eth_call: { error: { code: 3, message: 'execution reverted', data: '0x08c3' } },
  };
  const mode: TapeMode = {
    kind: 'replay',
    answer: (call) => {
      const found = recorded[call.method];
      if (found === undefined) throw new Error(`not recorded: ${call.method}`);
      return found;
    },
  };
  const taped = tapedClient(client, () => mode);
  const block = await taped.request<{ transactions: unknown[] }>('eth_getBlockByNumber', ['0x5', false]);
  block.transactions.push('changed by a caller');
  t.same(await taped.request('eth_getBlockByNumber', ['0x5', false]), { number: '0x5', transactions: [] }, 'a caller changing an answer changes no later one');
  const err = await taped.request('eth_call', []).catch((e: unknown) => e);
  t.ok(err instanceof RpcError, 'a recorded error is an RpcError, as the endpoint gave it');
  t.match(err, {
    rpcCode: 3,
    rpcMessage: 'execution reverted',
    data: '0x08c3',
    message: /eth_call failed with JSON-RPC error 3: execution reverted \(from recording\)/,
  });
  await t.rejects(taped.request('eth_getBalance', ['0xa']), { message: 'not recorded: eth_getBalance' });
  t.same(await taped.batchEach([{ method: 'eth_getBlockByNumber', params: ['0x5', false] }]), [
    { endpoint: 'recording', settled: [{ ok: true, value: { number: '0x5', transactions: [] }, endpoint: 'recording' }] },
  ]);
  t.same(asked, [], 'the endpoint was never asked');
});

t.test('the mode is asked per call: live calls go to the endpoint untouched', async (t) => {
  const { client, asked } = endpoint({ eth_chainId: () => ({ ok: true, value: '0x1' }) });
  let mode: TapeMode = { kind: 'replay', answer: () => ({ result: '0x2' }) };
  const taped = tapedClient(client, () => mode);
  t.equal(await taped.request('eth_chainId'), '0x2');
  mode = { kind: 'live' };
  t.equal(await taped.request('eth_chainId'), '0x1');
  t.same(asked, ['eth_chainId']);
});
