import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { compareDumps, dumpEntityTables } from '../test/support/entity-table-dump.ts';
import { envFor } from '../test/support/node-backends.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { buildErc20Project } from '../test/support/erc20-starter.ts';
import { copyProject, rebuild } from '../test/support/project-copies.ts';
import type { Benchmark } from './run.ts';
import { indexOnce } from './index-once.ts';
import { teardowns } from './teardowns.ts';
import { cachedErc20Workload } from './cached-workload.ts';
import { workloadOptions } from './node.bench.ts';

/**
 * A partial reindex (`--reuse`) against a full one, on the ERC20 workload (W1) with PostgreSQL:
 * version 1 of the starter indexed, then version 2 with handleBlock's code changed and
 * handleTransfer's not, indexed twice into new schemas: in full, and reusing version 1's. Each
 * timed from spawn to the last block committed, as a user waits; the two schemas compared
 * version by version.
 */
const BLOCKS = Number(process.env.BENCH_NODE_BLOCKS ?? 2000);

const bench: Benchmark = {
  name: 'reuse: a partial reindex against a full one',
  async run() {
    if (!process.env.DB_HOST) {
      console.log('skipped: --reuse needs PostgreSQL (set DB_HOST)');
      return;
    }
    const td = teardowns();
    try {
      const { anvil, workload: w } = await cachedErc20Workload(td, workloadOptions(BLOCKS));
      const dir = await copyProject(td, await buildErc20Project(td));
      const env = envFor('postgres');
      const [v1, full, partial] = ['v1', 'full', 'partial'].map((s) => uniqueSchemaName(`idx_reuse_${s}`));
      const db = await createDb({ env });
      td.teardown(async () => {
        for (const s of [v1, full, partial]) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
        await db.close();
      });
      const events = w.transfers + w.senders.length;
      const blocks = w.toBlock - w.startBlock + 1;
      const timed = async (label: string, schema: string, args: string[] = [], committed?: () => Promise<number | undefined>) => {
        // each run from a quiet database: the last one's writes checkpointed, its autovacuum given a moment
        await execute(db.kysely, 'checkpoint');
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const started = performance.now();
        await indexOnce(label, dir, anvil.url, env, schema, w.toBlock, events, blocks, args, committed);
        return (performance.now() - started) / 1000;
      };
      // a partial reindex commits the changed handlers' blocks before the copied rows are all in: done once its run is checked
      const checkedHeight = async () => {
        const rows = await execute<{ key: string; value: unknown }>(
          db.kysely,
          `select key, value from ${quoteIdent(partial)}._metadata where key in ('idxReuse', 'lastProcessedHeight')`,
        );
        const value = (key: string) => rows.find((r) => r.key === key)?.value;
        return (value('idxReuse') as { checked?: boolean } | undefined)?.checked === true ? (value('lastProcessedHeight') as number) : undefined;
      };
      await timed('version 1', v1);
      const mapping = join(dir, 'src', 'mappings', 'blocks.ts');
      const source = await readFile(mapping, 'utf8');
      if (!source.includes('BigInt(block.number)')) throw new Error(`${mapping} no longer has the line version 2 changes`);
      await writeFile(mapping, source.replace('BigInt(block.number)', 'BigInt(block.number) * 10n'));
      await rebuild(dir);
      const fullSeconds = await timed('version 2, full reindex', full);
      const partialSeconds = await timed(`version 2, --reuse`, partial, ['--reuse', v1], checkedHeight);
      const differences = compareDumps(await dumpEntityTables(db.kysely, full), await dumpEntityTables(db.kysely, partial), {
        theirs: 'full',
        ours: 'partial',
      });
      console.log(
        `  spawn → every row committed: full ${fullSeconds.toFixed(2)} s, partial ${partialSeconds.toFixed(2)} s: ${(fullSeconds / partialSeconds).toFixed(2)}× faster; ` +
          `tables ${differences.length === 0 ? 'exact' : `DIFFER:\n${differences.join('\n')}`}`,
      );
    } finally {
      await td.run();
    }
  },
};

export default bench;
