import t from 'tap';
import { queryFeatures } from '../apps/query/query-features.ts';
import { parseQueryArgs } from '../apps/query/query-options.ts';
import { runQuery } from '../apps/query/run-query.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { freePortGuess } from './support/node-ports.ts';
import { spawnWatchedNode } from './support/watched-node.ts';
import { gql } from './support/query-client.ts';

/**
 * Embedded, idx-query reads the node's PGlite through the node: once the node stops, a query (and a
 * start of idx-query) says so, with a code a client can act on, instead of a bare DATABASE_ERROR.
 */
t.test('idx-query on the embedded database of a node that stopped', async (t) => {
  const { anvil, workload, built } = await setupErc20Chain(t, 10);
  const dir = await copyProject(t, built);
  let reached: () => void;
  const indexed = new Promise<void>((r) => (reached = r));
  const node = spawnWatchedNode(dir, {}, ['--network-endpoint', anvil.url], (h) => h >= workload.toBlock && reached(), 200);
  t.teardown(async () => {
    node.child.kill('SIGKILL');
    await node.exited;
  });
  await indexed;

  const start = () => {
    const cmd = parseQueryArgs(['-f', dir, '--port', String(freePortGuess())], { version: 'test', cwd: dir, write: () => {} });
    if (cmd.command !== 'run') throw new Error('expected a run command');
    const logger = createLogger({ level: 'fatal', format: 'json', write: () => {} });
    return runQuery({ options: cmd.options, logger, version: 'test', env: {}, features: queryFeatures(cmd.options) });
  };
  const query = await start();
  t.teardown(() => query.close());
  const before = await gql(query.url, '{ transfers(first: 1) { totalCount } }');
  t.ok((before.data?.transfers?.totalCount ?? 0) > 0, 'answers while the node runs');

  node.child.kill('SIGTERM');
  t.equal((await node.exited).code, 0, 'the node stopped');
  for (const q of ['{ transfers(first: 1) { totalCount } }', '{ _metadata { lastProcessedHeight } }']) {
    const after = await gql(query.url, q);
    t.match(
      after.errors,
      [{ message: new RegExp(`^idx-node is not running for ${dir}: .*start idx-node -f ${dir} again`), extensions: { code: 'EMBEDDED_NODE_NOT_RUNNING' } }],
      `${q}: the error says the node is not running`,
    );
  }
  await t.rejects(start(), { code: 'EMBEDDED_NODE_NOT_RUNNING', message: new RegExp(`^idx-node is not running for ${dir}: `) }, 'and so does a start');
});
