import { GraphQLError } from 'graphql';
import { hexOf, type ReadColumn, type ValueKind } from './select-list.ts';
import { escapeLike, type SqlParams } from './sql-params.ts';

/** What a filter needs of a column: its kind, and the SQL type of one value for casting parameters. */
export type FilterColumn = ReadColumn & { sqlType: string };

/**
 * The filter operators of postgraphile-plugin-connection-filter, which SubQuery's query service
 * exposes: per operator the GraphQL input it takes and the SQL it becomes.
 */

/** What an operator's GraphQL argument is: the column's own type, a list of it, or a fixed type. */
export type OperandShape = 'value' | 'values' | 'boolean' | 'string' | 'strings' | 'json' | 'item';

export interface FilterOperator {
  name: string;
  shape: OperandShape;
  /** SQL for `ref <op> value` */
  sql(ref: string, value: unknown, c: FilterColumn, params: SqlParams): string;
}

const encode = (c: FilterColumn, v: unknown): string | null => {
  if (v === null || v === undefined) return null;
  if (c.kind === 'json') return JSON.stringify(v);
  if (c.kind === 'boolean') return v ? 'true' : 'false';
  if (c.kind === 'bytes') return byteaText(String(v));
  if (c.kind === 'datetime') return utcTimestampText(String(v));
  return String(v);
};

/** 0x-hex as bytea's text input (`\x…`); anything else is the user's error */
function byteaText(hex: string): string {
  // a run of hex digits and an even count: `(hex{2})*$` backtracked over a megabyte of odd length
  if (!/^0x[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) {
    throw new GraphQLError(`a Bytes value to compare with must be 0x-hex of whole bytes, got ${JSON.stringify(hex.slice(0, 80))}`, {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  return `\\x${hex.slice(2)}`;
}

/**
 * A Datetime for a `timestamp` column, which holds UTC without a zone: a time with a zone becomes
 * its UTC time; one without is taken as UTC already (as the stored values are).
 */
export function utcTimestampText(text: string): string {
  return /[T ]\d\d:\d\d(:\d\d(\.\d+)?)?\s*([zZ]|[+-]\d\d(:?\d\d)?)$/.test(text) ? new Date(text).toISOString() : text;
}

const one = (c: FilterColumn, v: unknown, params: SqlParams) => params.add(encode(c, v), c.sqlType);
const many = (c: FilterColumn, v: unknown, params: SqlParams) =>
  params.addList(
    (v as unknown[]).map((x) => encode(c, x)),
    c.sqlType,
  );
/** the whole value of a list column: `$n::text[]::numeric[]` */
const wholeList = many;

const compare = (name: string, op: string): FilterOperator => ({ name, shape: 'value', sql: (ref, v, c, p) => `${ref} ${op} ${one(c, v, p)}` });
const insensitive = (name: string, op: string): FilterOperator => ({
  name,
  shape: 'value',
  sql: (ref, v, _c, p) => `lower(${ref}) ${op} lower(${p.add(String(v), 'text')})`,
});
/**
 * Characters of a pattern operand (`includes`, `like`, …): the database matches a pattern against
 * each row in time that grows with both lengths, and the embedded one cannot stop a statement.
 */
export const MAX_PATTERN_CHARS = 1000;

const pattern = (name: string, wrap: (s: string) => string, negate: boolean, ci: boolean, raw = false): FilterOperator => ({
  name,
  shape: 'string',
  sql: (ref, v, _c, p) => {
    const text = String(v);
    if (text.length > MAX_PATTERN_CHARS)
      throw new GraphQLError(`${name}: a pattern of ${text.length} characters is more than the ${MAX_PATTERN_CHARS} a pattern may have`, {
        extensions: { code: 'BAD_USER_INPUT', limit: MAX_PATTERN_CHARS },
      });
    return `${ref} ${negate ? 'not ' : ''}${ci ? 'ilike' : 'like'} ${p.add(raw ? text : wrap(escapeLike(text)), 'text')}`;
  },
});

const isNull: FilterOperator = { name: 'isNull', shape: 'boolean', sql: (ref, v) => `${ref} is ${v ? '' : 'not '}null` };

const COMPARISONS: FilterOperator[] = [
  isNull,
  compare('equalTo', '='),
  compare('notEqualTo', '<>'),
  compare('distinctFrom', 'is distinct from'),
  compare('notDistinctFrom', 'is not distinct from'),
  { name: 'in', shape: 'values', sql: (ref, v, c, p) => `${ref} = any(${many(c, v, p)})` },
  { name: 'notIn', shape: 'values', sql: (ref, v, c, p) => `not (${ref} = any(${many(c, v, p)}))` },
  compare('lessThan', '<'),
  compare('lessThanOrEqualTo', '<='),
  compare('greaterThan', '>'),
  compare('greaterThanOrEqualTo', '>='),
];

const STRING_ONLY: FilterOperator[] = [
  pattern('includes', (s) => `%${s}%`, false, false),
  pattern('notIncludes', (s) => `%${s}%`, true, false),
  pattern('includesInsensitive', (s) => `%${s}%`, false, true),
  pattern('notIncludesInsensitive', (s) => `%${s}%`, true, true),
  pattern('startsWith', (s) => `${s}%`, false, false),
  pattern('notStartsWith', (s) => `${s}%`, true, false),
  pattern('startsWithInsensitive', (s) => `${s}%`, false, true),
  pattern('notStartsWithInsensitive', (s) => `${s}%`, true, true),
  pattern('endsWith', (s) => `%${s}`, false, false),
  pattern('notEndsWith', (s) => `%${s}`, true, false),
  pattern('endsWithInsensitive', (s) => `%${s}`, false, true),
  pattern('notEndsWithInsensitive', (s) => `%${s}`, true, true),
  pattern('like', (s) => s, false, false, true),
  pattern('notLike', (s) => s, true, false, true),
  pattern('likeInsensitive', (s) => s, false, true, true),
  pattern('notLikeInsensitive', (s) => s, true, true, true),
  insensitive('equalToInsensitive', '='),
  insensitive('notEqualToInsensitive', '<>'),
  insensitive('distinctFromInsensitive', 'is distinct from'),
  insensitive('notDistinctFromInsensitive', 'is not distinct from'),
  {
    name: 'inInsensitive',
    shape: 'values',
    sql: (ref, v, _c, p) =>
      `lower(${ref}) = any(${p.addList(
        (v as string[]).map((s) => s.toLowerCase()),
        'text',
      )})`,
  },
  {
    name: 'notInInsensitive',
    shape: 'values',
    sql: (ref, v, _c, p) =>
      `not (lower(${ref}) = any(${p.addList(
        (v as string[]).map((s) => s.toLowerCase()),
        'text',
      )}))`,
  },
  insensitive('lessThanInsensitive', '<'),
  insensitive('lessThanOrEqualToInsensitive', '<='),
  insensitive('greaterThanInsensitive', '>'),
  insensitive('greaterThanOrEqualToInsensitive', '>='),
];

const JSON_ONLY: FilterOperator[] = [
  { name: 'contains', shape: 'json', sql: (ref, v, _c, p) => `${ref} @> ${p.add(JSON.stringify(v), 'jsonb')}` },
  { name: 'containedBy', shape: 'json', sql: (ref, v, _c, p) => `${ref} <@ ${p.add(JSON.stringify(v), 'jsonb')}` },
  { name: 'containsKey', shape: 'string', sql: (ref, v, _c, p) => `${ref} ? ${p.add(String(v), 'text')}` },
  { name: 'containsAllKeys', shape: 'strings', sql: (ref, v, _c, p) => `${ref} ?& ${p.addList(v as string[], 'text')}` },
  { name: 'containsAnyKeys', shape: 'strings', sql: (ref, v, _c, p) => `${ref} ?| ${p.addList(v as string[], 'text')}` },
];

const listCompare = (name: string, op: string): FilterOperator => ({ name, shape: 'values', sql: (ref, v, c, p) => `${ref} ${op} ${wholeList(c, v, p)}` });
const anyCompare = (name: string, op: string): FilterOperator => ({ name, shape: 'item', sql: (ref, v, c, p) => `${one(c, v, p)} ${op} any(${ref})` });

const LIST: FilterOperator[] = [
  isNull,
  listCompare('equalTo', '='),
  listCompare('notEqualTo', '<>'),
  listCompare('distinctFrom', 'is distinct from'),
  listCompare('notDistinctFrom', 'is not distinct from'),
  listCompare('lessThan', '<'),
  listCompare('lessThanOrEqualTo', '<='),
  listCompare('greaterThan', '>'),
  listCompare('greaterThanOrEqualTo', '>='),
  listCompare('contains', '@>'),
  listCompare('containedBy', '<@'),
  listCompare('overlaps', '&&'),
  anyCompare('anyEqualTo', '='),
  anyCompare('anyNotEqualTo', '<>'),
  anyCompare('anyLessThan', '>'),
  anyCompare('anyLessThanOrEqualTo', '>='),
  anyCompare('anyGreaterThan', '<'),
  anyCompare('anyGreaterThanOrEqualTo', '<='),
];

/** Bytes filter as the 0x-hex text they show as: comparisons on the bytea itself (its index serves them), patterns on the hex. */
const BYTES: FilterOperator[] = [
  ...COMPARISONS,
  ...STRING_ONLY.map((op) => ({ ...op, sql: (ref: string, v: unknown, c: FilterColumn, p: SqlParams) => op.sql(hexOf(ref), v, c, p) })),
];

/** The operators of a column's filter type. */
export function operatorsFor(c: Pick<ReadColumn, 'kind' | 'list'>): FilterOperator[] {
  if (c.list) return LIST;
  return operatorsForKind(c.kind);
}

function operatorsForKind(kind: ValueKind): FilterOperator[] {
  if (kind === 'string') return [...COMPARISONS, ...STRING_ONLY];
  if (kind === 'bytes') return BYTES;
  // jsonb's own order, as connection-filter offers it on JSON
  if (kind === 'json') return [...COMPARISONS, ...JSON_ONLY];
  return COMPARISONS;
}
