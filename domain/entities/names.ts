import { pluralizeAsSequelize } from './sequelize-plural.ts';

/**
 * Database names as SubQuery's node makes them, so SQL, dashboards and exports written against a
 * SubQuery database find the same tables and columns here. SubQuery defines every entity as a
 * sequelize model with `underscored: true`: its table is `Utils.underscore(Utils.pluralize(name))`
 * and a field's column `Utils.underscore(field)`, where both are inflection 1.13's functions.
 * Measured against SubQuery's own output: `priceETH` → `price_e_t_h`, `NewTTL` → `new_t_t_ls`.
 */

/** PostgreSQL cuts identifiers longer than this many bytes (NAMEDATALEN - 1). */
export const MAX_IDENTIFIER_BYTES = 63;

/** What an enum type's name gets while idx migrates its values: the type is renamed aside, then dropped. */
export const ENUM_ASIDE_SUFFIX = '__before_migration';

/** A name's length as PostgreSQL counts it against {@link MAX_IDENTIFIER_BYTES}: in UTF-8 bytes. */
export const identifierBytes = (name: string): number => new TextEncoder().encode(name).length;

/**
 * Why `name` cannot name a project's database schema, or undefined when it can: PostgreSQL would
 * cut a longer name, and two projects with long names could share a schema.
 */
export function schemaNameProblem(name: string): string | undefined {
  const bytes = identifierBytes(name);
  if (bytes === 0) return 'the database schema name is empty';
  if (bytes > MAX_IDENTIFIER_BYTES)
    return `the database schema name "${name.slice(0, 20)}…" has ${bytes} bytes; PostgreSQL names have at most ${MAX_IDENTIFIER_BYTES}`;
  return undefined;
}

/**
 * inflection's `underscore`: `_` before every capital letter, then one leading `_` dropped, then
 * lower case. Digits and existing underscores stay as they are: `blockHeight` → `block_height`,
 * `tokenID` → `token_i_d`, `ERC20Token` → `e_r_c20_token`, `_hidden` → `hidden`.
 */
export function underscore(name: string): string {
  return name
    .replace(/([A-Z])/g, '_$1')
    .replace(/^_/, '')
    .toLowerCase();
}

/** Entity `StarterEntity` → table `starter_entities`, `NewTTL` → `new_t_t_ls` (the whole name is pluralised, then underscored). */
export function tableName(entity: string): string {
  return underscore(pluralizeAsSequelize(entity));
}

/** Field `blockHeight` → column `block_height`; a relation field `owner` → `owner_id` (SubQuery's foreign key is `<field>Id`). */
export function columnName(field: string, isRelation = false): string {
  return underscore(isRelation ? `${field}Id` : field);
}

/**
 * The names idx gave tables and columns before it followed SubQuery exactly (layout 1, see
 * `domain/entities/layout.ts`): runs of capitals stayed one word (`priceETH` → `price_eth`,
 * `NewTTL` → `new_ttls`). Still the rule for enum type names, which SubQuery names by a hash of
 * the enum's name: idx keeps them readable (`TransferKind` → `transfer_kind`).
 */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();
}

/** Enum `TransferKind` → Postgres type name `transfer_kind`. */
export function enumTypeName(name: string): string {
  return snakeCase(name);
}

/**
 * The `NOTIFY` channel of an entity table: the contract between the node's `--subscription` triggers
 * and the query service's listeners. Postgres truncates identifiers at 63 bytes, so a longer name
 * keeps its start and gains a hash of the whole, staying distinct.
 */
export function notifyChannel(schema: string, table: string): string {
  const name = `${schema}.${table}`;
  if (identifierBytes(name) <= MAX_IDENTIFIER_BYTES) return name;
  let hash = 0x811c9dc5; // FNV-1a, 32 bit
  for (const ch of name) hash = Math.imul(hash ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
  return `${name.slice(0, 40)}_${hash.toString(16).padStart(8, '0')}`;
}
