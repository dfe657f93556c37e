import type { EntityModel, FieldModel } from '../../domain/entities/entity-model.ts';
import type { EntityData } from '../../domain/entities/entity-store.ts';
import { propertyName } from '../../domain/entities/property-name.ts';

/** The column replacing `__block_range` in CSV output: the block whose handlers wrote the row. */
export const BLOCK_NUMBER_COLUMN = '__block_number';

/** The stored fields of an entity, in schema order: `id` first, virtual (`@derivedFrom`) fields left out. */
export function csvFields(entity: EntityModel): FieldModel[] {
  return entity.fields.filter((f) => typeof f.column === 'string');
}

/** Header cells: the entity's data keys (`fromId` for a relation `from`), then `__block_number`. */
export function csvHeader(entity: EntityModel): string[] {
  return [...csvFields(entity).map(propertyName), BLOCK_NUMBER_COLUMN];
}

/**
 * One field value as CSV text. Dates become Unix timestamps in seconds (with milliseconds as a
 * fraction when there are any, so nothing is lost); bigints and decimals their exact digits; bytes
 * 0x-hex; lists, JSON and `@jsonField` values JSON text; null and absent an empty cell.
 */
export function csvValue(field: FieldModel, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (field.type.kind === 'scalar' && field.type.scalar === 'Date' && !field.list) {
    const d = value instanceof Date ? value : new Date(value as string | number);
    const ms = d.getTime();
    return ms % 1000 === 0 ? String(ms / 1000) : (ms / 1000).toFixed(3);
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Uint8Array) return `0x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/**
 * A CSV line (RFC 4180 quoting: a cell with a comma, quote, line break or edge blank is quoted,
 * quotes doubled), ending in `\n`. Written by hand: the rule is this short and the
 * node has no CSV dependency.
 */
export function csvLine(cells: readonly string[]): string {
  let out = '';
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!;
    if (i > 0) out += ',';
    out += NEEDS_QUOTES.test(c) ? `"${c.replace(/"/g, '""')}"` : c;
  }
  return `${out}\n`;
}

/** The CSV line of one `set`: the entity's fields as stored, and the block that wrote it. */
export function csvRow(entity: EntityModel, data: EntityData, height: number): string {
  return csvLine([...csvFields(entity).map((f) => csvValue(f, data[propertyName(f)])), String(height)]);
}
