import type { Kysely } from 'kysely';
import { execute, qualified, quoteIdent, quoteLiteral } from '../../infra/postgres/sql.ts';

/**
 * Every version of every entity table of a schema, in a form two indexers can be compared in (and
 * a reference recorded in): idx's or SubQuery's node, PostgreSQL or PGlite. Values are text, read
 * so that equal meanings read equal: timestamps as UTC ISO instants, lists and JSON as jsonb text,
 * bytes as 0x-hex; the column types are kept beside them, so a type that differs is told once.
 * Left out: each side's bookkeeping columns (SubQuery's `_id`, the block-range columns, idx's
 * `__…`), and the values (not the columns) of `created_at`/`updated_at`, which hold wall-clock time.
 */
export interface TableDump {
  /** column → type as information_schema names it (arrays and enums by their udt name) */
  columns: Record<string, string>;
  /** whether the table keeps versions (a block range per row) */
  historical: boolean;
  /** every version, ordered by id (bytewise) then first block: `_from`/`_to` its block range (`_to` null while live) */
  rows: Record<string, string | null>[];
}

export type SchemaDump = Record<string, TableDump>;

const BOOKKEEPING = new Set(['_id', '_block_range', '__block_range']);
const WALL_CLOCK = new Set(['created_at', 'updated_at']);
const RANGE_COLUMNS = ['_block_range', '__block_range'];

/**
 * The entity tables of `schema`: every table that keeps versions, and the others but those whose name starts with `_`
 * (metadata, PoI, migrations…). An entity's own name may start with `_` (`type _Item`, whose table is `_items`).
 */
export async function dumpEntityTables(db: Kysely<any>, schema: string): Promise<SchemaDump> {
  const tables = await execute<{ name: string }>(
    db,
    `select t.table_name as name from information_schema.tables t
      where t.table_schema = ${quoteLiteral(schema)} and t.table_type = 'BASE TABLE'
        and (t.table_name not like '\\_%' or exists (select 1 from information_schema.columns c
          where c.table_schema = t.table_schema and c.table_name = t.table_name and c.column_name in (${RANGE_COLUMNS.map(quoteLiteral).join(', ')})))
      order by t.table_name`,
  );
  const dump: SchemaDump = {};
  for (const { name } of tables) dump[name] = await dumpTable(db, schema, name);
  return dump;
}

async function dumpTable(db: Kysely<any>, schema: string, table: string): Promise<TableDump> {
  const all = await execute<{ name: string; type: string; udt: string }>(
    db,
    `select column_name as name, data_type as type, udt_name as udt from information_schema.columns
      where table_schema = ${quoteLiteral(schema)} and table_name = ${quoteLiteral(table)} order by column_name`,
  );
  const range = RANGE_COLUMNS.find((r) => all.some((c) => c.name === r));
  const kept = all.filter((c) => !BOOKKEEPING.has(c.name) && !c.name.startsWith('__'));
  const columns: Record<string, string> = {};
  for (const c of kept) columns[c.name] = c.type === 'USER-DEFINED' ? await enumType(db, schema, c.udt) : c.type === 'ARRAY' ? c.udt : c.type;
  const read = kept.filter((c) => !WALL_CLOCK.has(c.name));
  const select = [
    ...read.map((c) => `${asText(c)} as ${quoteIdent(c.name)}`),
    ...(range ? [`lower(${quoteIdent(range)})::text as "_from"`, `upper(${quoteIdent(range)})::text as "_to"`] : []),
  ];
  const rows = await execute<Record<string, string | null>>(
    db,
    `select ${select.join(', ')} from ${qualified(schema, table)} order by id collate "C"${range ? `, lower(${quoteIdent(range)})` : ''}`,
  );
  return { columns, historical: range !== undefined, rows: rows.map((r) => ({ ...r })) };
}

/**
 * An enum column's type by its labels, `enum(a,b)`: SubQuery names the PostgreSQL type by a hash,
 * idx by the GraphQL enum's name; what a user's values can be is what compares.
 */
async function enumType(db: Kysely<any>, schema: string, udt: string): Promise<string> {
  const labels = await execute<{ label: string }>(
    db,
    `select e.enumlabel as label from pg_enum e join pg_type t on t.oid = e.enumtypid join pg_namespace n on n.oid = t.typnamespace
      where t.typname = ${quoteLiteral(udt)} and n.nspname = ${quoteLiteral(schema)} order by e.enumsortorder`,
  );
  return labels.length === 0 ? udt : `enum(${labels.map((l) => l.label).join(',')})`;
}

function asText(c: { name: string; type: string; udt: string }): string {
  const col = quoteIdent(c.name);
  if (c.type === 'timestamp with time zone') return `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  if (c.type === 'timestamp without time zone') return `to_char(${col}, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  if (c.type === 'ARRAY') return `to_jsonb(${col})::text`;
  if (c.type === 'bytea') return `'0x' || encode(${col}, 'hex')`;
  return `${col}::text`;
}

/**
 * What differs between two dumps of the same project's tables, as lines a reader can act on:
 * tables or columns one side lacks, column types, then version by version (a version is an id and
 * the block it starts at) the values that differ. At most `limit` lines per table.
 */
export function compareDumps(theirs: SchemaDump, ours: SchemaDump, names = { theirs: 'SubQuery', ours: 'idx' }, limit = 12): string[] {
  const out: string[] = [];
  for (const table of Object.keys(theirs)) {
    if (!(table in ours)) out.push(`${table}: ${names.ours} has no such table`);
  }
  for (const table of Object.keys(ours)) {
    if (!(table in theirs)) out.push(`${table}: ${names.theirs} has no such table`);
  }
  for (const [table, t] of Object.entries(theirs)) {
    const o = ours[table];
    if (o === undefined) continue;
    const lines: string[] = [];
    for (const [col, type] of Object.entries(t.columns)) {
      const mine = o.columns[col];
      if (mine === undefined) lines.push(`column ${col} (${type}): ${names.ours} has no such column`);
      else if (mine !== type) lines.push(`column ${col}: ${names.theirs} ${type}, ${names.ours} ${mine}`);
    }
    // idx keeps created_at/updated_at by default (--timestamp-field, as the reference has it); SubQuery's node 6.x
    // dropped them: their presence on our side alone is a documented difference (docs/substrate.md), not a defect
    for (const col of Object.keys(o.columns))
      if (!(col in t.columns) && !WALL_CLOCK.has(col)) lines.push(`column ${col} (${o.columns[col]}): ${names.theirs} has no such column`);
    if (t.historical !== o.historical)
      lines.push(`${names.theirs} keeps ${t.historical ? 'versions' : 'no versions'}, ${names.ours} ${o.historical ? 'versions' : 'no versions'}`);
    const key = (r: Record<string, string | null>) => `${r.id}@${r._from ?? ''}`;
    const mineByKey = new Map(o.rows.map((r) => [key(r), r]));
    const theirKeys = new Set(t.rows.map(key));
    if (t.rows.length !== o.rows.length) lines.push(`${t.rows.length} versions in ${names.theirs}, ${o.rows.length} in ${names.ours}`);
    const shared = Object.keys(t.columns).filter((c) => c in o.columns);
    for (const r of t.rows) {
      const m = mineByKey.get(key(r));
      if (m === undefined) {
        lines.push(`${names.ours} lacks ${describe(r)}`);
        continue;
      }
      const diffs = [...shared.filter((c) => c in r), '_to']
        .filter((c) => (r[c] ?? null) !== (m[c] ?? null))
        .map((c) => `${c}: ${names.theirs} ${show(r[c])}, ${names.ours} ${show(m[c])}`);
      if (diffs.length > 0) lines.push(`${key(r)}: ${diffs.join('; ')}`);
    }
    for (const m of o.rows) if (!theirKeys.has(key(m))) lines.push(`${names.theirs} lacks ${describe(m)}`);
    if (lines.length > limit) lines.splice(limit, lines.length - limit, `… and ${lines.length - limit} more`);
    out.push(...lines.map((l) => `${table}: ${l}`));
  }
  return out;
}

const show = (v: string | null | undefined) => (v === null || v === undefined ? 'null' : JSON.stringify(v));

function describe(r: Record<string, string | null>): string {
  return `${r.id}@${r._from ?? ''} ${JSON.stringify(r)}`;
}

/**
 * A dump as committed JSON: one line per row version, so a re-recorded reference diffs line by line.
 */
export function formatDump(dump: SchemaDump): string {
  const tables = Object.entries(dump).map(([name, t]) => {
    const rows = t.rows.map((r) => `        ${JSON.stringify(r)}`).join(',\n');
    return (
      `    ${JSON.stringify(name)}: {\n      "columns": ${JSON.stringify(t.columns)},\n      "historical": ${t.historical},\n` +
      `      "rows": [${rows ? `\n${rows}\n      ` : ''}]\n    }`
    );
  });
  return `{\n${tables.join(',\n')}\n  }`;
}
