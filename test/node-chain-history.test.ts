import t from 'tap';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { anvilForTest } from './support/anvil.ts';
import { envFor, openDb, PROGRAM_BACKEND } from './support/node-backends.ts';
import { buildErc20Project } from './support/erc20-starter.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { runNodeCli } from './support/watched-node.ts';
import { uniqueSchemaName } from './support/test-backends.ts';

// A fixed genesis timestamp: with anvil's default chain id and mnemonic, every anvil started so has one genesis hash.
const SAME_GENESIS = { args: ['--timestamp', '1700000000'] };

/** An anvil of that genesis with a small ERC20 workload (`seed` picks its transfers) of `blocks` blocks made final. */
async function chainWithWorkload(t: { teardown(fn: () => unknown): void }, seed: number, blocks: number) {
  const anvil = await anvilForTest(t, SAME_GENESIS);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  const workload = await makeErc20Workload(client, { blocks, transfersPerBlock: 4, approvalsPerBlock: 1, senders: 4, recipients: 8, seed });
  await client.request('anvil_mine', ['0x40']);
  const hashAt = async (h: number) => (await client.request<{ hash: string }>('eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).hash;
  return { anvil, workload, hashAt };
}

t.test('a restart against another chain with the same genesis refuses to index on, and leaves the rows as they were', async (t) => {
  const dir = await buildErc20Project(t);
  const env = envFor(PROGRAM_BACKEND);
  const schema = uniqueSchemaName('idx_e2e');
  // Opened between runs only: an embedded database has one user at a time.
  const inDb = async <T>(read: (db: Awaited<ReturnType<typeof openDb>>) => Promise<T>): Promise<T> => {
    const db = await openDb(PROGRAM_BACKEND, dir);
    try {
      return await read(db);
    } finally {
      await db.close();
    }
  };
  t.teardown(() => inDb((db) => execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`)).catch(() => undefined));
  const indexed = () =>
    inDb(async (db) => {
      const meta = async (key: string) =>
        (await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(schema)}._metadata where key = $1`, [key]))[0]?.value;
      return {
        rows: await erc20Tables(db, schema),
        height: Number(await meta('lastProcessedHeight')),
        stored: (await meta('lastVerifiableBlock')) as { height: number; hash: string },
      };
    });

  const first = await chainWithWorkload(t, 1, 6);
  const run1 = await runNodeCli(dir, env, ['--network-endpoint', first.anvil.url, '--db-schema', schema], { until: first.workload.toBlock });
  t.equal(run1.code, 0, 'the first chain is indexed');
  const before = await indexed();
  const { stored } = before;
  t.equal(stored.hash, await first.hashAt(stored.height), 'the newest indexed block with a hash is stored with the rows');
  t.ok(before.rows.transfers.length > 0, 'transfers were indexed');
  const genesis = await first.hashAt(0);
  await first.anvil.stop();

  // The dev chain restarted: same genesis, other blocks, and more of them (today's node went on over them).
  const second = await chainWithWorkload(t, 2, 10);
  t.equal(await second.hashAt(0), genesis, 'the new chain has the same genesis hash');
  t.not(await second.hashAt(stored.height), stored.hash, 'and another block at the stored height');

  const run2 = await runNodeCli(dir, env, ['--network-endpoint', second.anvil.url, '--db-schema', schema], {
    until: second.workload.toBlock,
    deadlineMs: 60_000,
  });
  t.notOk(run2.timedOut, 'the node exits by itself');
  t.equal(run2.code, 1, 'and fails');
  t.match(run2.output, `this database indexed block ${stored.height} as ${stored.hash.toLowerCase()}`);
  t.match(run2.output, `the chain's block ${stored.height} is ${(await second.hashAt(stored.height)).toLowerCase()}`);
  t.match(run2.output, /idx-node force-clean -f <project>/);
  t.same(await indexed(), before, 'the indexed rows, the height and the stored block are untouched');
});
