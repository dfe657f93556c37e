/** The value shapes schema.graphql's scalars accept, shared by save-time checks and the column codec. */

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
/** whole bytes: a `bytea` column takes no half byte */
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;

/** An Int value (a bigint in range counts): the number, or undefined. */
export function int32Of(v: unknown): number | undefined {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX ? n : undefined;
}

export const isIntegerText = (s: string): boolean => INTEGER.test(s);

export const isHexText = (s: string): boolean => HEX.test(s);

/** The decimal text of a BigDecimal value (bigint, finite number, decimal string or decimal.js-style object), or undefined. */
export function decimalTextOf(v: unknown): string | undefined {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  // decimal.js-style objects print themselves
  const s =
    typeof v === 'string' ? v : typeof v === 'object' && v !== null && typeof (v as { toFixed?: unknown }).toFixed === 'function' ? String(v) : undefined;
  return s !== undefined && DECIMAL.test(s) ? s : undefined;
}
