import { IdxError } from '../errors.ts';
import type { EntityModel, SchemaModel } from './entity-model.ts';
import { columnName, tableName } from './names.ts';

/**
 * How a project's tables are named and typed. A schema records the layout it was made with
 * (`SchemaModel.layout`, stored in `_metadata.schema`), so no table is ever read or written by
 * rules other than its own:
 *
 * - **1**, idx before it followed SubQuery's layout exactly: runs of capitals kept as one word
 *   (`priceETH` → `price_eth`, `NewTTL` → `new_ttls`); `Bytes` as `text` holding 0x-hex, lists as
 *   PostgreSQL arrays (`numeric[]`, `text[]`, …), `Date` as `timestamptz`.
 * - **2**, SubQuery's (what its node makes, measured side by side): names by sequelize's
 *   `underscore` (`price_e_t_h`, `new_t_t_ls`, see names.ts); `Bytes` as `bytea`, every list but
 *   an enum list as one `jsonb` array, `Date` as `timestamp without time zone` holding UTC.
 *
 * idx-node upgrades a schema of an older layout in place when it starts (one transaction, every
 * version kept: infra/postgres/upgrade-layout.ts); idx-query serves only the current one.
 */
export const LAYOUT = 2;

/** The layout of a model read back from a database: models stored before layouts were recorded are 1. */
export function withStoredLayout(model: Omit<SchemaModel, 'layout'> & { layout?: number }): SchemaModel {
  return { ...model, layout: typeof model.layout === 'number' ? model.layout : 1 };
}

/** What an upgrade renames in one entity: its table, and the columns whose name changes (old → new). */
export interface EntityRenames {
  entity: string;
  from: string;
  to: string;
  columns: ReadonlyMap<string, string>;
}

/**
 * The model `stored` becomes under the current layout: the same entities, fields, indexes and
 * enums, with table and column names made by today's rules. Two names that would meet under the
 * new rules (`fooBAR` and `foo_b_a_r`) are refused, naming both.
 */
export function relayout(stored: SchemaModel): { model: SchemaModel; renames: EntityRenames[] } {
  const renames: EntityRenames[] = [];
  const tables = new Map<string, string>();
  const entities = stored.entities.map((e): EntityModel => {
    const table = tableName(e.name);
    const other = tables.get(table);
    if (other !== undefined) throw collision(`entities ${other} and ${e.name} would both be stored in table "${table}"`);
    tables.set(table, e.name);
    const columns = new Map<string, string>();
    const owners = new Map<string, string>();
    const fields = e.fields.map((f) => {
      if (f.column === undefined) return f;
      const column = f.name === 'id' ? 'id' : columnName(f.name, f.type.kind === 'entity');
      const owner = owners.get(column);
      if (owner !== undefined) throw collision(`${e.name}.${owner} and ${e.name}.${f.name} would both be stored in column "${column}"`);
      owners.set(column, f.name);
      if (column !== f.column) columns.set(f.column, column);
      return { ...f, column };
    });
    const rename = (c: string) => columns.get(c) ?? c;
    renames.push({ entity: e.name, from: e.table, to: table, columns });
    return {
      ...e,
      table,
      fields,
      indexes: e.indexes.map((ix) => ({ ...ix, columns: ix.columns.map(rename) })),
      ...(e.fullText !== undefined && { fullText: { ...e.fullText, columns: e.fullText.columns.map(rename) } }),
    };
  });
  return { model: { ...stored, layout: LAYOUT, entities }, renames };
}

function collision(what: string): IdxError {
  return new IdxError(
    'SCHEMA_MIGRATION_REFUSED',
    `this schema cannot take SubQuery's table layout: ${what}. Rename one in schema.graphql and index into a new schema (--db-schema <name>), or run an earlier idx on this one`,
  );
}
