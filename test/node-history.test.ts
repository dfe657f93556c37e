import t from 'tap';
import { forceClean, reindex } from '../apps/node/start-up/history-commands.ts';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import type { Db } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { hexToNumber } from '../infra/rpc/hex-quantity.ts';
import { BACKENDS, envFor, openDb } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { indexedDbReads } from './support/index-in-process.ts';

exitWhenDone();

const { anvil, client, workload, built } = await setupErc20Chain(t, 20);
const best = hexToNumber(await client.request('eth_blockNumber'));
const logger = createLogger({ level: 'silent', format: 'json' });
const between = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));

for (const kind of BACKENDS) {
  const env = envFor(kind);

  t.test(`${kind}: reindex to random heights, then resume: every row, _poi and the kept hashes equal an uninterrupted run`, async (t) => {
    const dir = await copyProject(t, built);
    // With --unfinalized-blocks the node indexes to the head and keeps the hashes of the top 65 blocks.
    const args = ['--unfinalized-blocks', '--proof-of-index'];
    const index = (schema: string) =>
      runNode({
        options: nodeOptions(dir, anvil.url, ['--db-schema', schema, ...args]),
        logger,
        version: 'test',
        env,
        signal: new AbortController().signal,
        settings: { stopAtHeight: best },
      });
    const [whole, schema] = [uniqueSchemaName('idx_hist'), uniqueSchemaName('idx_hist')];
    // PGlite allows one open per folder: open for each look, between runs
    const withDb = indexedDbReads(t, kind, dir, [whole, schema]);
    await index(whole);
    await index(schema);

    const meta = async (db: Db, s: string) =>
      Object.fromEntries(
        (await execute<{ key: string; value: unknown }>(db.kysely, `select key, value from ${quoteIdent(s)}._metadata`)).map((r) => [r.key, r.value]),
      ) as Record<string, any>;
    // One height among the transfers (below the kept hashes), one among the kept hashes, in random order.
    const targets = [between(workload.fromBlock, workload.toBlock - 1), between(best - 60, best - 1)].sort(() => Math.random() - 0.5);
    for (const target of targets) {
      await reindex({ ...nodeOptions(dir, anvil.url, ['--db-schema', schema]), idx: dir }, target, logger, env);
      await withDb(async (db) => {
        const m = await meta(db, schema);
        t.equal(m.lastProcessedHeight, target, `reindex ${target}: lastProcessedHeight moved back`);
        const kept = m.unfinalizedBlocks as { blockHeight: number }[];
        t.ok(
          kept.every((b) => b.blockHeight <= target),
          `reindex ${target}: no kept hash above it`,
        );
        if (target >= best - 64) t.equal(kept[kept.length - 1]?.blockHeight, target, `reindex ${target}: the hashes up to it stay`);
        t.ok(m.lastFinalizedVerifiedHeight <= target, `reindex ${target}: lastFinalizedVerifiedHeight not above it`);
        t.ok((m.lastVerifiableBlock?.height ?? -1) <= target, `reindex ${target}: the block a restart checks is not above it`);
        const [poi] = await execute<{ max: string | null }>(db.kysely, `select max(id)::text max from ${quoteIdent(schema)}._poi`);
        t.ok(Number(poi?.max) <= target && m.lastCreatedPoiHeight === Number(poi?.max), `reindex ${target}: _poi and lastCreatedPoiHeight end at or below it`);
        for (const table of ['transfers', 'accounts', 'starter_entities']) {
          const [above] = await execute<{ n: number }>(
            db.kysely,
            `select count(*)::int n from ${quoteIdent(schema)}.${table} where lower(__block_range) > $1 or (not upper_inf(__block_range) and upper(__block_range) > $1)`,
            [target],
          );
          t.equal(above?.n, 0, `reindex ${target}: ${table} has no version born or closed above it`);
        }
      });
      await index(schema);
    }
    await withDb(async (db) => {
      t.same(await erc20Tables(db, schema), await erc20Tables(db, whole), 'every version row equals the uninterrupted run');
      const poi = (s: string) =>
        execute(
          db.kysely,
          `select id, encode(chain_block_hash, 'hex') c, encode(hash, 'hex') h, encode(parent_hash, 'hex') p from ${quoteIdent(s)}._poi order by id`,
        );
      t.same(await poi(schema), await poi(whole), 'the _poi chain equals the uninterrupted run');
      const keep = (m: Record<string, any>) => ({
        lastProcessedHeight: m.lastProcessedHeight,
        unfinalizedBlocks: m.unfinalizedBlocks,
        lastCreatedPoiHeight: m.lastCreatedPoiHeight,
      });
      t.same(keep(await meta(db, schema)), keep(await meta(db, whole)), 'the kept hashes and heights equal the uninterrupted run');
    });
  });

  t.test(`${kind}: --db-schema with a new name starts from scratch; force-clean and reindex below the start drop the schema`, async (t) => {
    const dir = await copyProject(t, built);
    const [a, b] = [uniqueSchemaName('idx_hist'), uniqueSchemaName('idx_hist')];
    const index = (schema: string, stopAtHeight: number) =>
      runNode({
        options: nodeOptions(dir, anvil.url, ['--db-schema', schema]),
        logger,
        version: 'test',
        env,
        signal: new AbortController().signal,
        settings: { stopAtHeight },
      });
    const schemaExists = async (s: string) => {
      const db = await openDb(kind, dir);
      try {
        return (await execute(db.kysely, `select 1 from information_schema.schemata where schema_name = $1`, [s])).length === 1;
      } finally {
        await db.close();
      }
    };
    t.teardown(async () => {
      const db = await openDb(kind, dir);
      for (const s of [a, b]) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
      await db.close();
    });
    await index(a, workload.toBlock);
    const early = workload.fromBlock + 2;
    await index(b, early);
    {
      const db = await openDb(kind, dir);
      const height = async (s: string) =>
        (await execute<{ value: number }>(db.kysely, `select value from ${quoteIdent(s)}._metadata where key = 'lastProcessedHeight'`))[0]?.value;
      t.equal(await height(b), early, 'the new schema was indexed from the start block');
      t.equal(await height(a), workload.toBlock, 'the other schema is untouched');
      const [count] = await execute<{ n: number; max: string }>(
        db.kysely,
        `select count(*)::int n, max(block_height)::text max from ${quoteIdent(b)}.transfers`,
      );
      t.equal(count?.n, 20 * 3 + 10, 'the new schema holds the mints and the transfers up to its height only');
      await db.close();
    }

    await forceClean({ ...nodeOptions(dir, anvil.url, ['--db-schema', a]), idx: dir }, logger, env);
    t.notOk(await schemaExists(a), 'force-clean dropped the schema');
    t.ok(await schemaExists(b), 'and only that one');
    await reindex({ ...nodeOptions(dir, anvil.url, ['--db-schema', b]), idx: dir }, 0, logger, env);
    t.notOk(await schemaExists(b), 'reindex below the start height force-cleans');
    await index(b, early);
    t.ok(await schemaExists(b), 'a start after force-clean indexes again');
  });
}
