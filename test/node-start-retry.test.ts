import t from 'tap';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { runNodeCli } from './support/watched-node.ts';
import { startLocalServer } from './support/local-rpc-server.ts';

const { anvil, workload, built } = await setupErc20Chain(t, 10);

t.test('a rate limit at start is ridden out: the chain check is retried with backoff and each retry logged', async (t) => {
  const dir = await copyProject(t, built);
  // the first two requests (the chain check) are refused with HTTP 429, then the chain answers
  const flaky = await startLocalServer(t, async (body, index) => {
    if (index < 2) return { status: 429, text: 'Too Many Requests' };
    const res = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { json: await res.json() };
  });
  const r = await runNodeCli(dir, {}, ['--network-endpoint', flaky.url], { until: workload.toBlock });
  t.equal(r.code, 0, 'the node starts and indexes');
  t.match(r.output, new RegExp(`<node> WARN checking the chain failed \\(${flaky.url}: HTTP 429[^)]*\\); retrying in 500 ms \\(1/4\\)`));
  t.match(r.output, /retrying in 1000 ms \(2\/4\)/);
  t.equal(r.lastSeen, workload.toBlock);
});
