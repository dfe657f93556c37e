import t from 'tap';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { hexToNumber } from '../infra/rpc/hex-quantity.ts';
import { anvilForTest } from './support/anvil.ts';
import { BACKENDS, envFor, openDb } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { buildErc20Project } from './support/erc20-starter.ts';
import { copyProject } from './support/project-copies.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

const built = await buildErc20Project(t);
// Reorganisations of these depths, made while the node follows the head. anvil calls a block final
// 64 blocks behind the head, so even the deepest stays above finality.
const DEPTHS = [3, 10, 25, 50];

for (const kind of BACKENDS) {
  t.test(`${kind}: reorgs of depth 1 to 50 while following the head; the tables equal a fresh index of the final chain`, async (t) => {
    const anvil = await anvilForTest(t);
    const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
    const head = async () => hexToNumber(await client.request('eth_blockNumber'));
    const work = { transfersPerBlock: 3, approvalsPerBlock: 0, senders: 5, recipients: 20 };
    const first = await makeErc20Workload(client, { ...work, blocks: 10, seed: 1 });
    const more = (blocks: number, seed: number) => makeErc20Workload(client, { ...work, blocks, seed, token: first.token });

    const dir = await copyProject(t, built);
    const env = envFor(kind);
    const [followed, fresh] = [uniqueSchemaName('idx_reorg'), uniqueSchemaName('idx_reorg')];
    const reorgs: string[] = [];
    const logger = createLogger({
      level: 'warn',
      format: 'json',
      write: (line) => {
        const record = JSON.parse(line) as { message?: unknown; event?: unknown };
        if (record.event === 'reorg') reorgs.push(String(record.message));
      },
    });
    let controller = new AbortController();
    let port: number | undefined;
    let failed: unknown;
    const follow = () => {
      controller = new AbortController();
      port = undefined;
      const running = runNode({
        options: nodeOptions(dir, anvil.url, ['--db-schema', followed, '--unfinalized-blocks', '--proof-of-index']),
        logger,
        version: 'test',
        env,
        signal: controller.signal,
        settings: { pollIntervalMs: 50 },
        onListening: (p) => (port = p),
      });
      running.catch((err: unknown) => (failed = err));
      return running;
    };
    let running = follow();
    t.teardown(() => controller.abort());

    /** Waits until the node has committed `height` and seen `reorgCount` reorganisations. */
    const caughtUp = async (height: number, reorgCount: number) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (failed !== undefined) throw failed;
        const meta =
          port === undefined ? undefined : ((await fetch(`http://127.0.0.1:${port}/meta`).then((r) => r.json())) as { lastProcessedHeight?: number });
        if ((meta?.lastProcessedHeight ?? -1) >= height && reorgs.length >= reorgCount) return;
        if (Date.now() > deadline)
          throw new Error(`the node did not reach block ${height} after ${reorgCount} reorgs (at ${meta?.lastProcessedHeight}, reorgs: ${reorgs.join(' | ')})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    // anvil mines the workload's blocks within a second; two blocks 12 s apart give the chain a pace to measure
    await client.request('anvil_mine', ['0x2', '0xc']);
    await caughtUp(await head(), 0);
    const { blockTime } = (await fetch(`http://127.0.0.1:${port}/meta`).then((r) => r.json())) as { blockTime?: unknown };
    t.ok(typeof blockTime === 'number' && Number.isInteger(blockTime) && blockTime > 0, `/meta has blockTime in whole milliseconds (${blockTime})`);
    // Depth 1 at the same height: only the hash of the head changes; the node must notice it while waiting.
    await client.request('anvil_reorg', [1, []]);
    await caughtUp(await head(), 1);
    t.equal(reorgs.length, 1);
    t.match(reorgs[0], /rewound from \d+ to \d+/, 'the same-height reorganisation was rolled back');

    // Deeper ones: the old branch gets `depth` blocks of transfers, the new one depth + 1 blocks of other transfers.
    for (const [i, depth] of DEPTHS.entries()) {
      const base = await head();
      const snapshot = await client.request<string>('evm_snapshot');
      await more(depth, 100 + i);
      const seen = reorgs.length;
      await caughtUp(base + depth, seen);
      await client.request('evm_revert', [snapshot]);
      await more(depth + 1, 200 + i);
      await caughtUp(base + depth + 1, seen + 1);
      t.match(reorgs[reorgs.length - 1], new RegExp(`rewound from ${base + depth} to ${base}\\b`), `depth ${depth}: rewound to the common ancestor ${base}`);
    }
    // A reorganisation while the node is stopped is found when it starts again.
    const base = await head();
    const snapshot = await client.request<string>('evm_snapshot');
    await more(5, 300);
    await caughtUp(base + 5, reorgs.length);
    controller.abort();
    await running;
    await client.request('evm_revert', [snapshot]);
    await more(6, 400);
    running = follow();
    await caughtUp(base + 6, 2 + DEPTHS.length);
    t.match(reorgs[reorgs.length - 1], new RegExp(`rewound from ${base + 5} to ${base}\\b`), 'on restart: rewound to the common ancestor');

    await more(3, 999);
    const final = await head();
    await caughtUp(final, reorgs.length);
    controller.abort();
    await running;
    t.equal(reorgs.length, 2 + DEPTHS.length, 'every reorganisation was seen once');

    await runNode({
      options: nodeOptions(dir, anvil.url, ['--db-schema', fresh, '--unfinalized-blocks', '--proof-of-index']),
      logger: createLogger({ level: 'silent', format: 'json' }),
      version: 'test',
      env,
      signal: new AbortController().signal,
      settings: { stopAtHeight: final },
    });
    const db = await openDb(kind, dir);
    t.teardown(async () => {
      for (const s of [followed, fresh]) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
      await db.close();
    });
    const tables = await erc20Tables(db, followed);
    t.ok(tables.transfers.length > 0);
    t.same(tables, await erc20Tables(db, fresh), 'every version row equals a fresh index of the final chain');
    const poi = (s: string) =>
      execute(
        db.kysely,
        `select id, encode(chain_block_hash, 'hex') c, encode(hash, 'hex') h, encode(parent_hash, 'hex') p from ${quoteIdent(s)}._poi order by id`,
      );
    t.same(await poi(followed), await poi(fresh), 'the _poi chain equals a fresh index');

    const [kept] = await execute<{ value: { blockHeight: number; blockHash: string }[] }>(
      db.kysely,
      `select value from ${quoteIdent(followed)}._metadata where key = 'unfinalizedBlocks'`,
    );
    const blocks = kept?.value ?? [];
    t.ok(blocks.length > 50, `the hashes of the blocks above finality are kept (${blocks.length})`);
    t.equal(blocks[blocks.length - 1]?.blockHeight, final);
    const chain = await client.batch<{ hash: string }>(
      blocks.map((b) => ({ method: 'eth_getBlockByNumber', params: [`0x${b.blockHeight.toString(16)}`, false] })),
    );
    t.same(
      blocks.map((b) => b.blockHash),
      chain.map((b) => b.hash),
      'the kept hashes are those of the final chain',
    );
  });
}
