import type { Kysely } from 'kysely';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';

/** How PostgreSQL alone kept pace over a replay of the writes of a run. */
export interface WriteFloor {
  batchBlocks: number;
  totalSeconds: number;
  /** seconds the first and the last tenth of the batches took */
  firstTenthSeconds: number;
  lastTenthSeconds: number;
  /** first / last: the share of its first-tenth speed PostgreSQL keeps at the end (the bench's "pace") */
  pace: number;
}

/**
 * The indexes of the replay's scratch tables: `as-written`, those of the source; `closed-versions`, the
 * same but for the `(id, lower(__block_range))` version index, which covers only the versions that ended
 * (the live ones are in the live unique index): a layout that indexes each version by its id once at a
 * time, measured here before the node writes it (docs/decisions/data-and-storage.md).
 */
export type ReplayLayout = 'as-written' | 'closed-versions';

/** An index definition of the source (`pg_get_indexdef`) as the scratch table of `layout` gets it. */
export function replayIndexDef(def: string, layout: ReplayLayout): string {
  if (layout === 'as-written' || !/ USING btree \(id, lower\(__block_range\)\)$/.test(def)) return def;
  return `${def} WHERE (NOT upper_inf(__block_range))`;
}

/**
 * The floor under the node's pace as the data grows: what idx wrote in `schema` over [from, to],
 * replayed by PostgreSQL alone (replayWrites), and how much slower its last tenth of the blocks went
 * than its first.
 */
export async function writeFloor(
  db: Kysely<any>,
  schema: string,
  from: number,
  to: number,
  batchBlocks = 100,
  layout: ReplayLayout = 'as-written',
): Promise<WriteFloor> {
  const scratch = `${schema}_floor`;
  try {
    const times = await replayWrites(db, schema, scratch, from, to, batchBlocks, layout);
    const tenth = Math.max(1, Math.ceil(times.length / 10));
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    const first = sum(times.slice(0, tenth));
    const last = sum(times.slice(-tenth));
    return { batchBlocks, totalSeconds: sum(times), firstTenthSeconds: first, lastTenthSeconds: last, pace: first / last };
  } finally {
    await execute(db, `drop schema if exists ${quoteIdent(scratch)} cascade`);
  }
}

/**
 * The versioned tables of `schema` (those with `__block_range`) written again into a new schema
 * `scratch`, with the same columns and indexes (or those of `layout`), batch of `batchBlocks` blocks by batch, each a
 * transaction as a flush is (replayStatements). No handler, no RPC, no COPY parsing: what is left is
 * the database's own cost of the writes. The rows are read by the bounds of `__block_range` through
 * indexes made on the source for the replay and dropped after (kept by a replay cut short: the next one uses them).
 * Returns each batch's seconds.
 */
export async function replayWrites(
  db: Kysely<any>,
  schema: string,
  scratch: string,
  from: number,
  to: number,
  batchBlocks: number,
  layout: ReplayLayout = 'as-written',
): Promise<number[]> {
  const src = quoteIdent(schema);
  const dst = quoteIdent(scratch);
  const tables = (
    await execute<{ table: string }>(
      db,
      `select table_name as table from information_schema.columns where table_schema = $1 and column_name = '__block_range' order by 1`,
      [schema],
    )
  ).map((r) => r.table);
  const readIndexNames = (table: string) => [`${table}_replay_lower`, `${table}_replay_upper`];
  const readIndexes = (table: string) => readIndexNames(table).map(quoteIdent);
  await execute(db, `create schema ${dst}`);
  try {
    const statements: { close: string; insert: string }[] = [];
    for (const table of tables) {
      const t = quoteIdent(table);
      await execute(db, `create table ${dst}.${t} (like ${src}.${t} including defaults)`);
      const defs = await execute<{ def: string; name: string }>(
        db,
        `select pg_get_indexdef(i.indexrelid) as def, c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = $1::regclass`,
        [`${src}.${t}`],
      );
      // the same index on the scratch table: only its table reference changes (pg_get_indexdef quotes a name only when
      // it must); not the replay's own, left on the source by a replay cut short
      for (const { def } of defs.filter((d) => !readIndexNames(table).includes(d.name)))
        await execute(db, replayIndexDef(def, layout).replace(` ON ${src}.`, ` ON ${dst}.`).replace(` ON ${schema}.`, ` ON ${dst}.`));
      const [byLower, byUpper] = readIndexes(table);
      await execute(db, `create index if not exists ${byLower} on ${src}.${t} (lower(__block_range))`);
      await execute(db, `create index if not exists ${byUpper} on ${src}.${t} (upper(__block_range))`);
      await execute(db, `analyze ${src}.${t}`);
      const columns = await execute<{ column: string }>(
        db,
        `select column_name as column from information_schema.columns where table_schema = $1 and table_name = $2 and column_name <> '__block_range' order by ordinal_position`,
        [schema, table],
      );
      statements.push(
        replayStatements(
          src,
          dst,
          t,
          columns.map((c) => quoteIdent(c.column)),
        ),
      );
    }
    const times: number[] = [];
    for (let a = from; a <= to; a += batchBlocks) {
      const b = Math.min(a + batchBlocks - 1, to);
      const started = performance.now();
      await db.transaction().execute(async (tx) => {
        for (const { close, insert } of statements) {
          await execute(tx, close, [a, b]);
          await execute(tx, insert, [a, b]);
        }
      });
      times.push((performance.now() - started) / 1000);
    }
    return times;
  } finally {
    for (const index of tables.flatMap(readIndexes)) await execute(db, `drop index if exists ${src}.${index}`);
  }
}

/**
 * The two statements of a batch for one table (quoted names; $1, $2: the batch's first and last
 * block): the live versions that end in the batch (replaced or deleted) get the range they have in
 * the source, through the live index as the node's close does; the versions born in the batch are
 * inserted, open unless they also end in it.
 */
export function replayStatements(src: string, dst: string, table: string, columns: readonly string[]): { close: string; insert: string } {
  const cols = columns.join(', ');
  return {
    close:
      `update ${dst}.${table} t set __block_range = s.__block_range from ${src}.${table} s ` +
      `where upper(s.__block_range) between $1 and $2 and t.id = s.id and upper_inf(t.__block_range) and lower(t.__block_range) = lower(s.__block_range)`,
    insert:
      `insert into ${dst}.${table} (${cols}, __block_range) select ${cols}, ` +
      `case when upper(__block_range) <= $2 then __block_range else int8range(lower(__block_range), null) end ` +
      `from ${src}.${table} where lower(__block_range) between $1 and $2`,
  };
}
