import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { literal, numberText } from '../scalars.ts';

const INTEGER = /^[+-]?\d+$/;
// hex digits, counted even after: `(?:hex{2})*$` backtracked over a megabyte of odd length
const HEX = /^(0x)?([0-9a-fA-F]*)$/;

const WHOLE = { shape: INTEGER, what: 'a number' };

/** graph-node's `BigInt`: an integer of any size, as a decimal string. */
export const GraphQLGraphBigInt = new GraphQLScalarType({
  name: 'BigInt',
  description: 'An integer of any size, as a decimal string',
  serialize: (v) => String(v),
  parseValue: (v) => numberText('BigInt', v, WHOLE),
  parseLiteral: (ast) => numberText('BigInt', literal(ast, 'BigInt', [Kind.STRING, Kind.INT]), WHOLE),
});

/** graph-node's `BigDecimal`: an exact decimal number, as a string. */
export const GraphQLGraphBigDecimal = new GraphQLScalarType({
  name: 'BigDecimal',
  description: 'An exact decimal number, as a string',
  serialize: (v) => String(v),
  parseValue: (v) => numberText('BigDecimal', v, { what: 'a number', example: '1.5' }),
  parseLiteral: (ast) => numberText('BigDecimal', literal(ast, 'BigDecimal', [Kind.STRING, Kind.INT, Kind.FLOAT]), { what: 'a number', example: '1.5' }),
});

/** Bytes as idx stores them: lowercase `0x` hex, whatever case the query used. */
function bytesInput(v: unknown): string {
  const m = typeof v === 'string' ? HEX.exec(v) : null;
  if (m === null || m[2]!.length % 2 !== 0) throw new GraphQLError(`Bytes must be hex of whole bytes, e.g. "0x1234"; got ${JSON.stringify(v)}`);
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
