import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

/** far beyond uint256 (78 digits), as for the SubQuery dialect's BigFloat */
const MAX_DIGITS = 1000;
const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const HEX = /^(0x)?((?:[0-9a-fA-F]{2})*)$/;

function literal(ast: ValueNode, name: string, kinds: readonly Kind[]): unknown {
  if (!kinds.includes(ast.kind)) throw new GraphQLError(`${name} cannot represent a ${ast.kind} value`, { nodes: [ast] });
  return (ast as { value: string }).value;
}

function numberText(name: string, shape: RegExp, example: string, v: unknown): string {
  const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'bigint' ? v.toString() : v;
  if (typeof s === 'string' && s.length > MAX_DIGITS) throw new GraphQLError(`${name} must have at most ${MAX_DIGITS} characters; got one of ${s.length}`);
  if (typeof s !== 'string' || !shape.test(s.trim()))
    throw new GraphQLError(`${name} must be a number in a string, e.g. "${example}"; got ${JSON.stringify(v)}`);
  return s.trim();
}

/** graph-node's `BigInt`: an integer of any size, as a decimal string. */
export const GraphQLGraphBigInt = new GraphQLScalarType({
  name: 'BigInt',
  description: 'An integer of any size, as a decimal string',
  serialize: (v) => String(v),
  parseValue: (v) => numberText('BigInt', INTEGER, '1000000000000000000', v),
  parseLiteral: (ast) => numberText('BigInt', INTEGER, '1000000000000000000', literal(ast, 'BigInt', [Kind.STRING, Kind.INT])),
});

/** graph-node's `BigDecimal`: an exact decimal number, as a string. */
export const GraphQLGraphBigDecimal = new GraphQLScalarType({
  name: 'BigDecimal',
  description: 'An exact decimal number, as a string',
  serialize: (v) => String(v),
  parseValue: (v) => numberText('BigDecimal', DECIMAL, '1.5', v),
  parseLiteral: (ast) => numberText('BigDecimal', DECIMAL, '1.5', literal(ast, 'BigDecimal', [Kind.STRING, Kind.INT, Kind.FLOAT])),
});

/** Bytes as idx stores them: lowercase `0x` hex, whatever case the query used. */
function bytesInput(v: unknown): string {
  const m = typeof v === 'string' ? HEX.exec(v) : null;
  if (m === null) throw new GraphQLError(`Bytes must be hex of whole bytes, e.g. "0x1234"; got ${JSON.stringify(v)}`);
  return `0x${m[2]!.toLowerCase()}`;
}

/** graph-node's `Bytes`: a byte string as `0x` hex. */
export const GraphQLGraphBytes = new GraphQLScalarType({
  name: 'Bytes',
  description: 'A byte string, as 0x-prefixed hex',
  serialize: (v) => String(v),
  parseValue: bytesInput,
  parseLiteral: (ast) => bytesInput(literal(ast, 'Bytes', [Kind.STRING])),
});
