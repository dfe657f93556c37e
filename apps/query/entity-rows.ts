import { badInput } from './compile-filter.ts';
import type { EntityTable } from './entity-tables.ts';
import type { QueryContext } from './query-context.ts';
import { rowsById } from '../../infra/postgres/read/rows-by-key.ts';

/** The height an entity row was read at: its relations are read at the same height. */
export const ROW_HEIGHT = Symbol('idx.rowHeight');

/** A row as read from an entity table (keys are column names), remembering its height. */
export type EntityRow = Record<string, unknown> & { [ROW_HEIGHT]?: bigint };

export function withHeight<R extends Record<string, unknown>>(row: R, height: bigint | undefined): EntityRow {
  if (height !== undefined) (row as EntityRow)[ROW_HEIGHT] = height;
  return row;
}

/** `blockHeight: String` → a height; a number that is not a whole block height is the user's error. */
export function parseBlockHeight(t: EntityTable, value: string | null | undefined): bigint | undefined {
  if (value === null || value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()))
    throw badInput(
      `blockHeight must be a block number (a whole number ≥ 0 as a string), got ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`,
    );
  if (!t.historical) {
    throw badInput(`blockHeight needs historical data, but ${t.entity.name} was indexed with --disable-historical; query without blockHeight`);
  }
  // digits past int8's 19 are refused before BigInt, which takes seconds over a million of them
  const digits = value.trim().replace(/^0+(?=\d)/, '');
  if (digits.length > MAX_HEIGHT_DIGITS || BigInt(digits) > MAX_HEIGHT)
    throw badInput(`blockHeight ${digits.length > 30 ? `${digits.slice(0, 30)}…` : digits} is beyond the largest block height (${MAX_HEIGHT})`);
  return BigInt(digits);
}

/** heights are int8 */
const MAX_HEIGHT = 2n ** 63n - 1n;
const MAX_HEIGHT_DIGITS = String(MAX_HEIGHT).length;

/**
 * Rows of `t` by id at `height`, batched: every lookup of one request in the same tick (a
 * page's relations, several single-row fields) is one statement.
 */
export function loadById(ctx: QueryContext, t: EntityTable, id: string, height: bigint | undefined): Promise<EntityRow | undefined> {
  return ctx.batcher.load<EntityRow>(`byId:${t.entity.name}:${height ?? 'live'}`, id, async (ids) => {
    const { text, values } = rowsById(t, ids, height);
    const rows = await ctx.sql<EntityRow>(text, values);
    return new Map(rows.map((r) => [r.id as string, withHeight(r, height)]));
  });
}
