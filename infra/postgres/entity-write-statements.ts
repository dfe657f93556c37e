import type { EntityData, PoiRow } from '../../domain/entities/entity-store.ts';
import type { HistoricalTablePlan, PlainTablePlan } from '../../domain/entities/plan-writes.ts';
import { CopyIn, copyField } from './copy-in.ts';
import { toJsonText } from './column-codec.ts';
import type { EntityTable } from './entity-table-sql.ts';
import { intArray, textArray } from './pg-arrays.ts';
import { BLOCK_RANGE } from './schema-ddl.ts';

/** One statement of a store's transaction. */
export interface Statement {
  sql: string;
  /** built lazily: the run builds one statement's parameters while the server runs the one before */
  params: unknown[] | (() => unknown[]);
}

/** rows per chunk of a COPY: big enough to stream well, small enough not to hold a flush twice as one string */
export const COPY_CHUNK_ROWS = 4096;

/** Rows as the upsert's parameters: the ids, then one text[] per column. */
export function encodeRows(t: EntityTable, rows: readonly { id: string; data: EntityData }[]): string[] {
  const ids: string[] = new Array(rows.length);
  const cols: (string | null)[][] = t.columns.map(() => new Array(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const { id, data } = rows[r]!;
    ids[r] = id;
    for (let c = 0; c < t.columns.length; c++) cols[c]![r] = t.columns[c]!.encode(data[t.columns[c]!.property]);
  }
  return [textArray(ids), ...cols.map(textArray)];
}

/**
 * Versions as COPY's text rows (the columns, then `[lower,upper)`, then the chain), made as the
 * COPY reads them, so the server parses one chunk while the next is built. Lines are joined per
 * chunk: measured 3× faster than appending to one string, which V8 keeps as a rope until the
 * socket flattens it.
 */
export function* copyChunks(t: EntityTable, versions: HistoricalTablePlan['inserts']): Generator<string> {
  const n = t.columns.length;
  const fields: string[] = new Array(n + 2);
  let lines: string[] = [];
  for (let r = 0; r < versions.length; r++) {
    const { id, data, lower, upper } = versions[r]!;
    fields[0] = copyField(id);
    for (let c = 0; c < n; c++) fields[c + 1] = copyField(t.columns[c]!.encode(data[t.columns[c]!.property]));
    fields[n + 1] = `[${lower},${upper ?? ''})${t.chainField}`;
    lines.push(fields.join('\t'));
    if (lines.length === COPY_CHUNK_ROWS) {
      yield `${lines.join('\n')}\n`;
      lines = [];
    }
  }
  if (lines.length > 0) yield `${lines.join('\n')}\n`;
}

/**
 * For the rest of the flush's transaction: joins by nested loops. A close finds each id's live version through the
 * live index, a probe per id; the planner, which cannot tell how many rows `upper_inf(__block_range)` keeps, would
 * rather hash every version of the table (8,000 ids against W10's 400,000 transfers: 220 ms by a sequential scan,
 * 14 ms by the index), and that grows with the table. The flush's other statements have no join.
 */
export const JOIN_BY_INDEX: Statement = {
  sql: `select set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`,
  params: [],
};

/** Historical: close the live versions (replacing those born at that height when `replace`), then COPY the new ones. */
export function historicalStatements(t: EntityTable, plan: HistoricalTablePlan, replace: boolean): Statement[] {
  const out: Statement[] = [];
  if (plan.closeIds.length > 0) {
    out.push({ sql: replace ? t.closeReplaceSql : t.closeSql, params: [textArray(plan.closeIds), intArray(plan.closeHeights)] });
  }
  if (plan.inserts.length > 0) {
    out.push({ sql: t.copySql, params: () => [new CopyIn(copyChunks(t, plan.inserts))] });
  }
  return out;
}

/** A historical flush's tables, in order; {@link JOIN_BY_INDEX} once, first, when any of them closes versions. */
export function historicalFlushStatements(tables: readonly { t: EntityTable; plan: HistoricalTablePlan }[], replace: boolean): Statement[] {
  const statements = tables.flatMap(({ t, plan }) => historicalStatements(t, plan, replace));
  return tables.some(({ plan }) => plan.closeIds.length > 0) ? [JOIN_BY_INDEX, ...statements] : statements;
}

/** Plain (`--disable-historical`): delete the removed ids, upsert the rest. */
export function plainStatements(t: EntityTable, plan: PlainTablePlan): Statement[] {
  const out: Statement[] = [];
  if (plan.removes.length > 0) out.push({ sql: t.deleteSql, params: [textArray(plan.removes)] });
  if (plan.upserts.length > 0) {
    out.push({ sql: t.upsertSql, params: encodeRows(t, plan.upserts) });
  }
  return out;
}

/** Upserts `_metadata` keys; undefined when there are none. */
export function metadataStatement(metadataTable: string, entries: Readonly<Record<string, unknown>>): Statement | undefined {
  const keys = Object.keys(entries);
  if (keys.length === 0) return undefined;
  return {
    sql:
      `insert into ${metadataTable} (key, value) select k, v::jsonb from unnest($1::text[], $2::text[]) as u(k, v) ` +
      `on conflict (key) do update set value = excluded.value`,
    params: [textArray(keys), textArray(keys.map((k) => (entries[k] === undefined ? null : toJsonText(entries[k]))))],
  };
}

/** Upserts `_poi` rows, the hashes as hex; undefined when there are none. */
export function poiStatement(poiTable: string, rows: readonly PoiRow[]): Statement | undefined {
  if (rows.length === 0) return undefined;
  const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex'));
  return {
    sql:
      `insert into ${poiTable} (id, chain_block_hash, hash, parent_hash, operation_hash_root) ` +
      `select u.id, decode(u.a, 'hex'), decode(u.b, 'hex'), decode(u.c, 'hex'), decode(u.d, 'hex') ` +
      `from unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[]) as u(id, a, b, c, d) ` +
      `on conflict (id) do update set chain_block_hash = excluded.chain_block_hash, hash = excluded.hash, ` +
      `parent_hash = excluded.parent_hash, operation_hash_root = excluded.operation_hash_root`,
    params: [
      intArray(rows.map((r) => r.id)),
      textArray(rows.map((r) => hex(r.chainBlockHash))),
      textArray(rows.map((r) => hex(r.hash))),
      textArray(rows.map((r) => hex(r.parentHash))),
      textArray(rows.map((r) => hex(r.operationHashRoot))),
    ],
  };
}

/**
 * A rewind to `height`: versions born above it go, versions closed above it reopen (in each table, only the
 * rows `ownRows` selects: a chain's own under --multi-chain), `_poi` above it goes, and the metadata is set.
 */
export function rewindStatements(
  tables: Iterable<EntityTable>,
  where: { poiTable: string; metadataTable: string; ownRows: string },
  height: number,
  metadata: Readonly<Record<string, unknown>>,
): Statement[] {
  const { poiTable, metadataTable, ownRows } = where;
  const statements: Statement[] = [];
  for (const t of tables) {
    statements.push({ sql: `delete from ${t.name} where lower(${BLOCK_RANGE}) > $1${ownRows}`, params: [height] });
    statements.push({
      sql: `update ${t.name} set ${BLOCK_RANGE} = int8range(lower(${BLOCK_RANGE}), null) where not upper_inf(${BLOCK_RANGE}) and upper(${BLOCK_RANGE}) > $1${ownRows}`,
      params: [height],
    });
  }
  statements.push({ sql: `delete from ${poiTable} where id > $1`, params: [height] });
  statements.push(metadataStatement(metadataTable, metadata)!);
  return statements;
}
