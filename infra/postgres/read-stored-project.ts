import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import { IdxError } from '../../domain/errors.ts';
import { LAYOUT, withStoredLayout } from '../../domain/entities/layout.ts';
import { BLOCK_RANGE, changesIndexNames } from './schema-ddl.ts';
import { execute, qualified } from './sql.ts';

/** What the node left in a project schema for readers: its entity model and how each table is stored. */
export interface StoredProject {
  /** the database schema */
  schema: string;
  model: SchemaModel;
  /** entity tables that carry `__block_range` (none with the node's `--disable-historical`) */
  historicalTables: ReadonlySet<string>;
  /** historical tables with the node's `--changes-index` indexes */
  changesTables: ReadonlySet<string>;
  /** `model` as JSON text: two reads of an unchanged project give the same text */
  fingerprint: string;
}

/**
 * Reads the entity model the node stored in `_metadata` (key `schema`), never project files, and
 * checks that every entity table exists. Errors say what to run, for a user who named the wrong
 * project or started the query service before the node.
 */
export async function readStoredProject(db: Kysely<any>, schema: string, where = 'the database'): Promise<StoredProject> {
  const hint = `has idx-node indexed project "${schema}" yet? -n/--name must be the node's --db-schema (else its --idx-name, else its project folder name)`;
  const [found] = await execute<{ ok: boolean }>(db, `select exists (select 1 from pg_namespace where nspname = $1) as ok`, [schema]);
  if (found?.ok !== true) throw new IdxError('PROJECT_NOT_INDEXED', `${where} has no schema "${schema}": ${hint}`);
  const tables = await execute<{ table: string; historical: boolean }>(
    db,
    `select c.relname as table, exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = $2 and not a.attisdropped) as historical
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relkind in ('r', 'p')`,
    [schema, BLOCK_RANGE],
  );
  if (!tables.some((t) => t.table === '_metadata')) throw new IdxError('PROJECT_NOT_INDEXED', `schema "${schema}" in ${where} has no _metadata table: ${hint}`);
  const [row] = await execute<{ value: unknown }>(db, `select value from ${qualified(schema, '_metadata')} where key = 'schema'`);
  const value = typeof row?.value === 'string' ? (JSON.parse(row.value) as unknown) : row?.value;
  if (!isSchemaModel(value)) {
    throw new IdxError('PROJECT_NOT_INDEXED', `schema "${schema}" in ${where} holds no entity model (_metadata key "schema"): ${hint}`);
  }
  const model = withStoredLayout(value);
  if (model.layout < LAYOUT) {
    throw new IdxError(
      'SCHEMA_LAYOUT_OLD',
      `schema "${schema}" in ${where} was made by an earlier idx, with table names and column types of its own (layout ${model.layout}); ` +
        `this idx-query reads SubQuery's layout. Start idx-node (this version) on the project once: it upgrades the tables in place, keeping every row`,
    );
  }
  const present = new Map(tables.map((t) => [t.table, t.historical]));
  const missing = model.entities.filter((e) => !present.has(e.table)).map((e) => e.table);
  if (missing.length > 0) {
    throw new IdxError(
      'PROJECT_INCOMPLETE',
      `schema "${schema}" in ${where} lacks the tables ${missing.join(', ')} of its entity model; restart idx-node on the project so it creates them`,
    );
  }
  const historicalTables = new Set(model.entities.filter((e) => present.get(e.table) === true).map((e) => e.table));
  const indexes = new Set((await execute<{ name: string }>(db, `select indexname as name from pg_indexes where schemaname = $1`, [schema])).map((r) => r.name));
  const changesTables = new Set([...historicalTables].filter((table) => changesIndexNames(table).every((n) => indexes.has(n))));
  return {
    schema,
    model,
    historicalTables,
    changesTables,
    fingerprint: JSON.stringify(model) + JSON.stringify([...historicalTables].sort()) + JSON.stringify([...changesTables].sort()),
  };
}

function isSchemaModel(v: unknown): v is Omit<SchemaModel, 'layout'> {
  const m = v as SchemaModel | undefined;
  return typeof m === 'object' && m !== null && Array.isArray(m.entities) && Array.isArray(m.enums) && Array.isArray(m.jsonTypes);
}
