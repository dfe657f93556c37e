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
