import type { Kysely } from 'kysely';
import type { EntityModel, SchemaModel } from '../../domain/entities/entity-model.ts';
import { timestampColumns } from '../../domain/entities/timestamp-columns.ts';
import { resolveColumns } from './column-codec.ts';
import { FULL_TEXT_COLUMN } from '../../domain/entities/entity-model.ts';
import { fullTextColumnDdl } from './full-text.ts';
import { execute, indexName, qualified, quoteIdent, quoteLiteral } from './sql.ts';

export interface SchemaDdlOptions {
  /** the project's database schema */
  schema: string;
  /** versions with `__block_range` (default); false for `--disable-historical` */
  historical: boolean;
  /** idx's insert/update time columns (`timestampColumns`); false for `--timestamp-field=false` */
  timestampField: boolean;
  /** `--changes-index`: index versions by the heights they began and ended (idx-query's `<entity>Changes`) */
  changesIndex?: boolean;
}

/** The two indexes `--changes-index` keeps on a historical table: versions begun, and versions ended, by height. */
export function changesIndexNames(table: string): [begun: string, ended: string] {
  return [indexName(table, ['lower', 'id'], 'begun'), indexName(table, ['upper', 'id'], 'ended')];
}

export const BLOCK_RANGE = '__block_range';

// how buildTableDdl writes an index: `create [unique] index if not exists "<name>" on "<schema>"."<table>" …`
const INDEX_STATEMENT = /^create (?:unique )?index if not exists "((?:[^"]|"")+)" on "(?:[^"]|"")+"\."((?:[^"]|"")+)"/;

/** The index a statement of {@link buildTableDdl} creates (names unquoted), or undefined for a table. */
export function indexOfStatement(statement: string): { name: string; table: string } | undefined {
  const m = INDEX_STATEMENT.exec(statement);
  return m === null ? undefined : { name: m[1]!.replace(/""/g, '"'), table: m[2]!.replace(/""/g, '"') };
}

/**
 * `CREATE ... IF NOT EXISTS` statements for the entity tables and their indexes; enums are made by
 * {@link applySchemaDdl}, which needs to look at what exists.
 *
 * Historical tables have no exclusion constraint: measured here, `EXCLUDE USING gist (id WITH =,
 * __block_range WITH &&)` writes at ~17k versions/s, while a btree on `(id, lower(__block_range))`
 * plus a unique partial index on `(id) WHERE upper_inf(__block_range)` runs at ~300k/s. The partial
 * index still lets the database refuse two live versions of one id; the store's writer keeps ranges
 * from overlapping, and its tests check that. The `(id, lower)` btree is deliberately not unique:
 * closing a range rewrites the row with the same key, and a unique index would then check the old
 * row on every close (about 30% of the close's server time, measured).
 */
export function buildTableDdl(model: SchemaModel, options: SchemaDdlOptions): string[] {
  const statements: string[] = [];
  for (const entity of model.entities) statements.push(...entityDdl(entity, model, options));
  return statements;
}

function entityDdl(entity: EntityModel, model: SchemaModel, { schema, historical, timestampField, changesIndex }: SchemaDdlOptions): string[] {
  const table = qualified(schema, entity.table);
  const columns = resolveColumns(entity, model, schema);
  const defs = [historical ? 'id text not null' : 'id text primary key'];
  for (const c of columns) defs.push(`${quoteIdent(c.column)} ${c.sqlType}${c.nullable ? '' : ' not null'}`);
  if (timestampField) {
    const ts = timestampColumns(entity);
    defs.push(`${quoteIdent(ts.created)} timestamptz not null default now()`, `${quoteIdent(ts.updated)} timestamptz not null default now()`);
  }
  if (historical) defs.push(`${BLOCK_RANGE} int8range not null`);
  if (entity.fullText !== undefined) defs.push(fullTextColumnDdl(entity.fullText));
  const out = [`create table if not exists ${table} (\n  ${defs.join(',\n  ')}\n)`];
  const live = historical ? ` where upper_inf(${BLOCK_RANGE})` : '';
  const index = (cols: readonly string[], unique: boolean, suffix: string, expr?: string, where = '', using = '') =>
    out.push(
      `create ${unique ? 'unique ' : ''}index if not exists ${quoteIdent(indexName(entity.table, cols, suffix))} on ${table} ${using}(${expr ?? cols.map(quoteIdent).join(', ')})${where}`,
    );
  if (historical) {
    // Finds an id's versions in order: reads at a height, and closing on write.
    index(['id', 'lower'], false, 'versions', `id, lower(${BLOCK_RANGE})`);
    index(['id'], true, 'live', 'id', live);
  }
  if (historical && changesIndex === true) {
    // The changes between two heights (idx-query's `<entity>Changes`): versions begun, and versions
    // ended, in a height window, in (height, id) order. Live rows never enter the second. Opt-in:
    // a closed version is a new tuple in every index, and these two cost about a third of the
    // store's write speed (docs/DECISIONS.md).
    index(['lower', 'id'], false, 'begun', `lower(${BLOCK_RANGE}), id`);
    index(['upper', 'id'], false, 'ended', `upper(${BLOCK_RANGE}), id`, ` where not upper_inf(${BLOCK_RANGE})`);
  }
  // Field indexes, relation columns (looked up by getByField and GraphQL joins) and composite
  // indexes, once each.
  const wanted = new Map<string, { columns: string[]; unique: boolean }>();
  const want = (cols: string[], unique: boolean) => {
    const key = cols.join(',');
    const had = wanted.get(key);
    if (had === undefined) wanted.set(key, { columns: cols, unique });
    else had.unique ||= unique;
  };
  for (const c of columns) {
    if (c.field.index !== undefined) want([c.column], c.field.index.unique);
    else if (c.field.type.kind === 'entity' && !c.field.list) want([c.column], false);
  }
  for (const ix of entity.indexes) if (ix.columns.length > 0 && !(ix.columns.length === 1 && ix.columns[0] === 'id')) want([...ix.columns], ix.unique);
  for (const { columns: cols, unique } of wanted.values()) {
    // Unique among live rows only: older versions of the same or other ids may hold the value.
    if (unique) index(cols, true, 'unique', undefined, live);
    // Historical: the versions' first height last, so a read at a past height skips, in the index, the
    // versions begun after it (visible-versions.ts). The name is the same: a schema made before keeps its index.
    else if (historical) index(cols, false, 'idx', `${cols.map(quoteIdent).join(', ')}, lower(${BLOCK_RANGE})`);
    else index(cols, false, 'idx');
  }
  // `@fullText`: one GIN index over every version (searches at past heights use it too). The name
  // carries the columns and language, so a changed directive makes a new index and drops the old.
  const ft = entity.fullText;
  if (ft !== undefined) index(ft.columns, false, `fulltext_${ft.language}`, quoteIdent(FULL_TEXT_COLUMN), '', 'using gin ');
  return out;
}

/**
 * Creates the project's enums, tables and indexes that do not exist yet, in one transaction under
 * an advisory lock on the schema. Enum values the schema added since are appended.
 */
export async function applySchemaDdl(db: Kysely<any>, model: SchemaModel, options: SchemaDdlOptions): Promise<void> {
  const { schema } = options;
  await db.transaction().execute(async (tx) => {
    await execute(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idx.ddl:${schema}`]);
    await execute(tx, `create schema if not exists ${quoteIdent(schema)}`);
    for (const e of model.enums) {
      const existing = await execute<{ label: string }>(
        tx,
        `select e.enumlabel as label from pg_enum e join pg_type t on t.oid = e.enumtypid join pg_namespace n on n.oid = t.typnamespace
         where n.nspname = $1 and t.typname = $2 order by e.enumsortorder`,
        [schema, e.pgName],
      );
      const type = qualified(schema, e.pgName);
      if (existing.length === 0) {
        await execute(tx, `create type ${type} as enum (${e.values.map(quoteLiteral).join(', ')})`);
        continue;
      }
      const have = new Set(existing.map((r) => r.label));
      for (const v of e.values) if (!have.has(v)) await execute(tx, `alter type ${type} add value if not exists ${quoteLiteral(v)}`);
    }
    for (const statement of buildTableDdl(model, options)) await execute(tx, statement);
  });
}
