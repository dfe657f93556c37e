import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

// one way to read each string (`\d+\.?\d*` backtracked quadratically over a long run of digits)
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A literal of one of `kinds` as its text; anything else is refused in the scalar's name. */
export function literal(ast: ValueNode, name: string, kinds: readonly Kind[]): string {
  if (!kinds.includes(ast.kind)) throw new GraphQLError(`${name} cannot represent a ${ast.kind} value`, { nodes: [ast] });
  return (ast as { value: string }).value;
}

/** a value refused, as an error quotes it: the start of a long one (graphql-js puts the whole value before the reason) */
function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 40)}…(${text.length} characters)` : text;
}

/** far beyond uint256 (78 digits); PostgreSQL's numeric overflows at a size no block data has */
const MAX_DECIMAL_CHARS = 1000;

/**
 * An exact number given as a string (or a JS number), as its trimmed text: `shape` says which
 * (a decimal by default), `what` and `example` how the error names it.
 */
export function numberText(
  name: string,
  v: unknown,
  { shape = DECIMAL, what = 'a decimal number', example = '1000000000000000000' }: { shape?: RegExp; what?: string; example?: string } = {},
): string {
  const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'bigint' ? v.toString() : v;
  if (typeof s === 'string' && s.length > MAX_DECIMAL_CHARS)
    throw new GraphQLError(`${name} must be ${what} of at most ${MAX_DECIMAL_CHARS} characters; got one of ${s.length}`);
  if (typeof s !== 'string' || !shape.test(s.trim())) throw new GraphQLError(`${name} must be ${what} in a string, e.g. "${example}"; got ${shown(v)}`);
  return s.trim();
}

/** PostGraphile's `BigFloat`: numeric columns (BigInt, BigDecimal) as exact decimal strings. */
export const GraphQLBigFloat = new GraphQLScalarType({
  name: 'BigFloat',
  description: 'A floating point number that requires more precision than IEEE 754 binary 64; sent as a string',
  serialize: (v) => (typeof v === 'string' ? v : String(v)),
  parseValue: (v) => numberText('BigFloat', v),
  parseLiteral: (ast) => numberText('BigFloat', literal(ast, 'BigFloat', [Kind.STRING, Kind.INT, Kind.FLOAT])),
});

/** PostGraphile's `BigInt`: 64-bit counts as strings (distinctCount). */
export const GraphQLBigIntString = new GraphQLScalarType({
  name: 'BigInt',
  description: 'A signed eight-byte integer, sent as a string',
  serialize: (v) => String(v),
  parseValue: (v) => {
    const s = String(v);
    if (!/^[+-]?\d+$/.test(s)) throw new GraphQLError(`BigInt must be a whole number in a string; got ${JSON.stringify(v)}`);
    return s;
  },
  parseLiteral: (ast) => literal(ast, 'BigInt', [Kind.STRING, Kind.INT]),
});

/** ISO 8601 with nanoseconds and a zone is 35 characters */
const MAX_DATETIME_CHARS = 100;

function datetimeInput(v: unknown): string {
  if (typeof v === 'string' && v.length > MAX_DATETIME_CHARS)
    throw new GraphQLError(`Datetime must be an ISO 8601 date and time of at most ${MAX_DATETIME_CHARS} characters; got one of ${v.length}`);
  if (typeof v !== 'string' || Number.isNaN(Date.parse(v)))
    throw new GraphQLError(`Datetime must be an ISO 8601 date and time, e.g. "2024-05-01T12:00:00Z"; got ${shown(v)}`);
  return v;
}

/** PostGraphile's `Datetime`: timestamps as ISO 8601 text. */
export const GraphQLDatetime = new GraphQLScalarType({
  name: 'Datetime',
  description: 'A point in time as described by the ISO 8601 standard',
  serialize: (v) => (v instanceof Date ? v.toISOString() : typeof v === 'string' ? new Date(v).toISOString() : String(v)),
  parseValue: datetimeInput,
  parseLiteral: (ast) => datetimeInput(literal(ast, 'Datetime', [Kind.STRING])),
});

/** Opaque pagination cursors. */
export const GraphQLCursor = new GraphQLScalarType({
  name: 'Cursor',
  description: 'A location in a connection that can be used for resuming pagination',
  serialize: (v) => String(v),
  parseValue: (v) => {
    if (typeof v !== 'string') throw new GraphQLError('Cursor must be a string from an earlier page');
    return v;
  },
  parseLiteral: (ast) => literal(ast, 'Cursor', [Kind.STRING]),
});
