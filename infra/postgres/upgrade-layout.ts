import type { Kysely } from 'kysely';
import { CHAIN_COLUMN } from '../../domain/entities/chain-tables.ts';
import type { FieldModel, SchemaModel } from '../../domain/entities/entity-model.ts';
import { relayout } from '../../domain/entities/layout.ts';
import { timestampColumns } from '../../domain/entities/timestamp-columns.ts';
import { IdxError } from '../../domain/errors.ts';
import { toJsonText } from './column-codec.ts';
import { textArray } from './create-entity-store.ts';
import { BLOCK_RANGE, buildTableDdl, indexOfStatement, type SchemaDdlOptions } from './schema-ddl.ts';
import { execute, hasColumn, indexName, qualified, quoteIdent, type Executor } from './sql.ts';

/** What an upgrade did, one line each, for the node's log. */
export interface LayoutUpgrade {
  model: SchemaModel;
  lines: string[];
}

/**
 * Brings a schema made with idx's layout 1 to SubQuery's (domain/entities/layout.ts), in place and
 * in one transaction with the stored model: tables, columns and their indexes renamed to SubQuery's
 * names, then Bytes columns retyped to `bytea`, Date to `timestamp` (UTC), lists to `jsonb` arrays
 * holding what SubQuery's store writes. Every version of every row stays. A value the new type
 * cannot take (Bytes text of an odd number of hex digits) fails the whole upgrade, naming it, and
 * leaves the schema as it was.
 */
export async function upgradeLayout(db: Kysely<any>, stored: SchemaModel, options: SchemaDdlOptions): Promise<LayoutUpgrade> {
  const { schema } = options;
  if (stored.layout !== 1) throw new IdxError('SCHEMA_MIGRATION_FAILED', `schema "${schema}" has layout ${stored.layout}, which this idx cannot upgrade`);
  const { model, renames } = relayout(stored);
  const lines: string[] = [];
  await db.transaction().execute(async (tx) => {
    await execute(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idx.ddl:${schema}`]);
    const step = async (what: string, sql: string) => {
      try {
        await execute(tx, sql);
      } catch (err) {
        throw new IdxError(
          'SCHEMA_MIGRATION_FAILED',
          `upgrading schema "${schema}" to SubQuery's table layout failed at "${what}": ${(err as Error).message}. Nothing was changed; ` +
            'run the idx this schema was made with, or index into a new schema with --db-schema <name>',
          { cause: err },
        );
      }
    };

    // Indexes are named after their table and columns: the pairs of names the two models give them.
    const ddl = { ...options, changesIndex: true };
    const oldIndexes = buildTableDdl(stored, ddl).map(indexOfStatement);
    const newStatements = buildTableDdl(model, ddl);
    const newIndexes = newStatements.map(indexOfStatement);
    const existing = new Map(
      (
        await execute<{ name: string; definition: string }>(tx, `select indexname as name, indexdef as definition from pg_indexes where schemaname = $1`, [
          schema,
        ])
      ).map((r) => [r.name, r.definition]),
    );
    // A historical table's field indexes now end with lower(__block_range) (schema-ddl.ts); layout 1's were
    // made without it: those are dropped rather than renamed, and the DDL that follows makes them again as a
    // new schema has them. Told by the definitions, since a long name ends in a hash rather than its suffix.
    const heightLast = `lower(${BLOCK_RANGE})`;
    const indexPairs: [string, string][] = [];
    const rebuilt: string[] = [];
    for (let i = 0; i < oldIndexes.length; i++) {
      const [a, b] = [oldIndexes[i], newIndexes[i]];
      if (a === undefined || b === undefined) continue;
      const had = existing.get(a.name);
      if (had !== undefined && newStatements[i]!.includes(heightLast) && !had.includes(heightLast)) rebuilt.push(a.name);
      else if (a.name !== b.name) indexPairs.push([a.name, b.name]);
    }
    for (const r of renames) if (r.from !== r.to) indexPairs.push([indexName(r.from, [CHAIN_COLUMN], 'idx'), indexName(r.to, [CHAIN_COLUMN], 'idx')]);
    for (const name of rebuilt) await step(`index ${name}`, `drop index ${qualified(schema, name)}`);
    await renameAll(
      indexPairs.filter(([from]) => existing.has(from)),
      (from, to) => step(`index ${from} → ${to}`, `alter index ${qualified(schema, from)} rename to ${quoteIdent(to)}`),
    );

    const tablePairs = renames.filter((r) => r.from !== r.to).map((r): [string, string] => [r.from, r.to]);
    await renameAll(tablePairs, (from, to) => step(`table ${from} → ${to}`, `alter table ${qualified(schema, from)} rename to ${quoteIdent(to)}`));
    for (const [from, to] of tablePairs) lines.push(`table ${from} → ${to}`);

    for (const r of renames) {
      const before = stored.entities.find((e) => e.name === r.entity)!;
      const after = model.entities.find((e) => e.name === r.entity)!;
      const pairs = [...r.columns];
      if (options.timestampField) {
        // a field that now takes created_at/updated_at moves idx's own column aside (timestamp-columns.ts)
        const [a, b] = [timestampColumns(before), timestampColumns(after)];
        for (const [from, to] of [
          [a.created, b.created],
          [a.updated, b.updated],
        ] as const) {
          if (from !== to && (await hasColumn(tx, schema, r.to, from))) pairs.push([from, to]);
        }
      }
      await renameAll(pairs, (from, to) =>
        step(`column ${r.to}.${from} → ${to}`, `alter table ${qualified(schema, r.to)} rename column ${quoteIdent(from)} to ${quoteIdent(to)}`),
      );
      for (const [from, to] of pairs) lines.push(`column ${r.to}.${from} → ${to}`);
      // constraints PostgreSQL named after the table and column: a --disable-historical table's
      // primary key, and (PostgreSQL 18) NOT NULL constraints, `<table>_<column>_not_null`
      const oldColumn = new Map(pairs.map(([from, to]) => [to, from]));
      for (const c of await tableConstraints(tx, schema, r.to)) {
        const [was, name] =
          c.kind === 'p' ? [`${r.from}_pkey`, `${r.to}_pkey`] : [`${r.from}_${oldColumn.get(c.column!) ?? c.column}_not_null`, `${r.to}_${c.column}_not_null`];
        if (c.name === was && c.name !== name && Buffer.byteLength(name) <= 63)
          await step(`constraint ${c.name} → ${name}`, `alter table ${qualified(schema, r.to)} rename constraint ${quoteIdent(c.name)} to ${quoteIdent(name)}`);
      }
      for (const field of after.fields) {
        const using = newTypeOf(field, quoteIdent(field.column ?? ''));
        if (field.column === undefined || field.derivedFrom !== undefined || using === undefined) continue;
        if (using.helper !== undefined) await step('a conversion function', using.helper);
        await step(
          `${after.name}.${field.name} to ${using.type}`,
          `alter table ${qualified(schema, r.to)} alter column ${quoteIdent(field.column)} type ${using.type} using ${using.expression}`,
        );
        lines.push(`column ${r.to}.${field.column}: ${using.from} → ${using.type}`);
      }
    }
    await execute(
      tx,
      `insert into ${qualified(schema, '_metadata')} (key, value) values ('schema', $1::jsonb) on conflict (key) do update set value = excluded.value`,
      [toJsonText(model)],
    );
  });
  return { model, lines };
}

interface Retype {
  from: string;
  type: string;
  expression: string;
  /** a statement to run first: ALTER … USING takes no subquery, so a list that needs one goes through a function */
  helper?: string;
}

/** The column type a layout-1 field changes to in layout 2, with the cast of its values; undefined when it stays. */
function newTypeOf(field: FieldModel, ref: string): Retype | undefined {
  const t = field.type;
  if (t.kind !== 'scalar' || t.scalar === 'JSON') return undefined;
  if (!field.list) {
    if (t.scalar === 'Bytes') return { from: 'text', type: 'bytea', expression: `decode(substr(${ref}, 3), 'hex')` };
    if (t.scalar === 'Date') return { from: 'timestamptz', type: 'timestamp', expression: `${ref} at time zone 'UTC'` };
    return undefined;
  }
  // a list as SubQuery's store writes it: BigInt and BigDecimal as decimal strings, a Date as its toISOString()
  if (t.scalar === 'BigInt' || t.scalar === 'BigDecimal') return { from: 'numeric[]', type: 'jsonb', expression: `to_jsonb(${ref}::text[])` };
  if (t.scalar === 'Date') {
    return {
      from: 'timestamptz[]',
      type: 'jsonb',
      expression: `pg_temp.idx_dates_jsonb(${ref})`,
      helper:
        `create or replace function pg_temp.idx_dates_jsonb(v timestamptz[]) returns jsonb language sql immutable strict as $f$ ` +
        `select coalesce(jsonb_agg(to_jsonb(to_char(x at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by n), '[]'::jsonb) ` +
        `from unnest(v) with ordinality as u(x, n) $f$`,
    };
  }
  return { from: 'an array', type: 'jsonb', expression: `to_jsonb(${ref})` };
}

/**
 * Renames every `from` to its `to`. When one's new name is another's old name, every name first
 * takes a temporary one, so no rename meets a name still in use.
 */
async function renameAll(pairs: readonly (readonly [string, string])[], rename: (from: string, to: string) => Promise<void>): Promise<void> {
  const olds = new Set(pairs.map(([from]) => from));
  if (!pairs.some(([, to]) => olds.has(to))) {
    for (const [from, to] of pairs) await rename(from, to);
    return;
  }
  const temps = pairs.map((_, i) => `__idx_layout_${i}`);
  for (let i = 0; i < pairs.length; i++) await rename(pairs[i]![0], temps[i]!);
  for (let i = 0; i < pairs.length; i++) await rename(temps[i]!, pairs[i]![1]);
}

/** A table's primary key and NOT NULL constraints, with the column a NOT NULL constraint holds. */
async function tableConstraints(tx: Executor, schema: string, table: string): Promise<{ name: string; kind: 'p' | 'n'; column: string | null }[]> {
  return execute(
    tx,
    `select c.conname as name, c.contype as kind, a.attname as column
       from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
       left join pg_attribute a on c.contype = 'n' and a.attrelid = t.oid and a.attnum = c.conkey[1]
      where n.nspname = $1 and t.relname = $2 and c.contype::text in ('p', 'n')`,
    [schema, table],
  );
}
