import { readFile, rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import type { StoreOperation } from '../domain/entities/entity-store.ts';
import { createDb, type Db } from '../infra/postgres/create-db.ts';
import { createEntityStore } from '../infra/postgres/create-entity-store.ts';
import { dropProjectSchema, prepareProjectSchema } from '../infra/postgres/prepare-project-schema.ts';
import { execute } from '../infra/postgres/sql.ts';
import { freshPgliteDir, uniqueSchemaName } from '../test/support/test-backends.ts';
import { entity, schemaModel } from '../test/support/test-models.ts';
import type { Benchmark } from './run.ts';

/**
 * Versioned writes: ENTITIES ids written at block 1, then updated at each of UPDATE_BLOCKS blocks,
 * one flush per block, so every update also closes the previous version's range. Then a rewind
 * that deletes the newer half of the history and reopens what it closed.
 */
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 100_000);
const UPDATE_BLOCKS = Number(process.env.BENCH_BLOCKS ?? 5);

const model = schemaModel([
  entity('Transfer', {
    from: { type: 'String', nullable: false },
    to: { type: 'String', nullable: false },
    value: { type: 'BigInt', nullable: false },
    blockHeight: { type: 'Int', nullable: false },
    memo: 'String',
  }),
]);

function block(height: number): StoreOperation[] {
  const ops: StoreOperation[] = new Array(ENTITIES);
  for (let i = 0; i < ENTITIES; i++) {
    const id = `0x${i.toString(16).padStart(8, '0')}-transfer`;
    ops[i] = {
      entity: 'Transfer',
      id,
      height,
      op: 'set',
      data: {
        id,
        from: `0xfrom${i % 977}`,
        to: `0xto${i % 1009}`,
        value: BigInt(i) * 10n ** 18n + BigInt(height),
        blockHeight: height,
        memo: i % 3 === 0 ? null : 'memo',
      },
    };
  }
  return ops;
}

async function runOn(label: string, db: Db): Promise<void> {
  const schema = uniqueSchemaName('idx_bench');
  try {
    await prepareProjectSchema(db.kysely, model, { schema, historical: true, timestampField: true });
    const store = createEntityStore({ db: db.kysely, schema, model, historical: true, timestampField: true });
    let t0 = performance.now();
    await store.flush({ operations: block(1), metadata: { lastProcessedHeight: 1 } });
    const createSecs = (performance.now() - t0) / 1000;
    let updateSecs = 0;
    const cpu = await backendCpu(db);
    const cpuBefore = { node: process.cpuUsage(), db: await cpu() };
    for (let h = 2; h <= UPDATE_BLOCKS + 1; h++) {
      const ops = block(h); // built outside the timing: the node has them in memory already
      t0 = performance.now();
      await store.flush({ operations: ops, metadata: { lastProcessedHeight: h } });
      updateSecs += (performance.now() - t0) / 1000;
    }
    const nodeCpu = process.cpuUsage(cpuBefore.node);
    const dbCpu = (await cpu()) - cpuBefore.db;
    const updates = ENTITIES * UPDATE_BLOCKS;
    const target = Math.ceil((UPDATE_BLOCKS + 1) / 2);
    t0 = performance.now();
    await store.rewind(target);
    const rewindSecs = (performance.now() - t0) / 1000;
    const [rows] = await execute<{ n: number }>(db.kysely, `select count(*)::int as n from "${schema}".transfers`);
    const total = ENTITIES * (UPDATE_BLOCKS + 1);
    console.log(
      `${label}: create ${ENTITIES} versions ${rate(ENTITIES, createSecs)}; ` +
        `update ${updates} versions (closing ${updates} ranges) in ${updateSecs.toFixed(2)} s = ${rate(updates, updateSecs)}; ` +
        `all ${total} versions ${rate(total, createSecs + updateSecs)}; ` +
        `CPU for the updates: idx ${((nodeCpu.user + nodeCpu.system) / 1e6).toFixed(2)} s (incl. building the test data)${db.kind === 'postgres' && dbCpu >= 0 ? `, server ${dbCpu.toFixed(2)} s` : ' (PGlite runs inside it)'} (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores); ` +
        `rewind to block ${target} (deletes ${ENTITIES * (UPDATE_BLOCKS + 1 - target)} versions, reopens ${ENTITIES}) ${rewindSecs.toFixed(2)} s, ${rows!.n} rows left`,
    );
    // The node's usual shape: one flush spans several blocks, so only each id's first write in it
    // closes a stored range; the later versions are inserted already closed.
    const ops: StoreOperation[] = [];
    for (let h = target + 1; h <= target + UPDATE_BLOCKS; h++) ops.push(...block(h));
    t0 = performance.now();
    await store.flush({ operations: ops, metadata: { lastProcessedHeight: target + UPDATE_BLOCKS } });
    const batchSecs = (performance.now() - t0) / 1000;
    console.log(
      `${label}: then ${UPDATE_BLOCKS} blocks of updates in one flush: ${ops.length} versions (closing ${ENTITIES} stored ranges) in ${batchSecs.toFixed(2)} s = ${rate(ops.length, batchSecs)}`,
    );
  } finally {
    await dropProjectSchema(db.kysely, schema);
  }
}

/**
 * CPU seconds the database's backends for this benchmark have used, read from /proc when the
 * server runs on this machine (PGlite runs inside this process: no separate figure).
 */
async function backendCpu(db: Db): Promise<() => Promise<number>> {
  if (db.kind !== 'postgres') return async () => -1;
  const pids = async () => (await execute<{ pid: number }>(db.kysely, `select pid from pg_stat_activity where application_name = 'idx'`)).map((r) => r.pid);
  const ticks = async (pid: number) => {
    try {
      const f = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
      return Number(f[11]) + Number(f[12]);
    } catch {
      return Number.NaN;
    }
  };
  return async () => {
    let sum = 0;
    for (const pid of await pids()) sum += await ticks(pid);
    return Number.isNaN(sum) ? -1 : sum / 100;
  };
}

function rate(n: number, secs: number): string {
  return `${Math.round(n / secs).toLocaleString('en-US')} versions/s`;
}

const bench: Benchmark = {
  name: 'store',
  async run() {
    console.log(`${ENTITIES} entities x ${UPDATE_BLOCKS + 1} versions (1 create + ${UPDATE_BLOCKS} updates), one flush per block`);
    if (process.env.DB_HOST) {
      const db = await createDb({ env: process.env });
      try {
        await runOn(`PostgreSQL (${db.description})`, db);
      } finally {
        await db.close();
      }
    } else {
      console.log('PostgreSQL: skipped (set DB_HOST, DB_PORT, DB_USER, DB_DATABASE to measure it)');
    }
    if (process.env.BENCH_SKIP_PGLITE) return;
    const dir = await freshPgliteDir();
    const db = await createDb({ env: {}, dataDir: dir });
    try {
      await runOn('PGlite', db);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
