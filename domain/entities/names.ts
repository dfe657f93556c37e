import pluralize from 'pluralize';

/**
 * Database names as SubQuery (sequelize, `underscored: true`) makes them, so existing SQL and
 * dashboards keep working: `StarterEntity` → `starter_entities`, `blockHeight` → `block_height`.
 */

/** `blockHeight` → `block_height`, `ERC20Token` → `erc20_token`, `tokenID` → `token_id` */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();
}

/** Entity `StarterEntity` → table `starter_entities` (the last word is pluralised). */
export function tableName(entity: string): string {
  const snake = snakeCase(entity);
  const cut = snake.lastIndexOf('_');
  return snake.slice(0, cut + 1) + pluralize(snake.slice(cut + 1));
}

/** Field `blockHeight` → column `block_height`; a relation field `owner` → `owner_id`. */
export function columnName(field: string, isRelation = false): string {
  return snakeCase(field) + (isRelation ? '_id' : '');
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
  if (new TextEncoder().encode(name).length <= 63) return name;
  let hash = 0x811c9dc5; // FNV-1a, 32 bit
  for (const ch of name) hash = Math.imul(hash ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
  return `${name.slice(0, 40)}_${hash.toString(16).padStart(8, '0')}`;
}
