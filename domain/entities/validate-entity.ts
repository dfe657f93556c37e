import { IdxError } from '../errors.ts';
import type { EntityModel, FieldModel, Scalar, SchemaModel } from './entity-model.ts';
import type { EntityData } from './entity-store.ts';
import { propertyName } from './property-name.ts';
import { decimalTextOf, int32Of, isHexText, isIntegerText } from './scalar-values.ts';

/**
 * Checks an entity's values against schema.graphql when a mapping writes it, not when its batch
 * is flushed: a value the database would refuse (a NUL byte, a string for an Int, an invalid Date,
 * an indexed string too long for its index) then fails the block that wrote it, naming the entity,
 * its id and the field, and the blocks before it still commit. Lone surrogates are refused too:
 * PostgreSQL text would hold U+FFFD instead, so distinct ids or values would become one.
 */
export type EntityValidator = (entity: string, id: string, data: EntityData) => void;

/**
 * A btree entry holds at most 2704 bytes (a third of a page, less its header); with the tuple
 * header and the other key columns, 2600 bytes of text always fit, compressible or not.
 */
export const INDEXED_TEXT_MAX_BYTES = 2600;
/** digits before the point in a PostgreSQL `numeric` */
const NUMERIC_MAX_DIGITS = 131072;
/** 2^435,411 < 10^131,072: a bigint smaller in magnitude has no more digits than a `numeric` holds, and needs no decimal text to tell */
const FEWER_DIGITS_THAN_NUMERIC = 1n << 435_411n;
const MINUS_FEWER_DIGITS_THAN_NUMERIC = -FEWER_DIGITS_THAN_NUMERIC;
// with the u flag a pair is one code point, so only a lone half matches
const LONE_SURROGATE = /\p{Cs}/u;
/** PostgreSQL's timestamptz starts at 4713 BC */
const MIN_DATE_MS = Date.UTC(-4712, 0, 1);

type Check = (value: unknown) => string | undefined;

/**
 * An integer's decimal text (a sign, leading zeros) with more digits than a `numeric` holds before the point. The
 * sign is not a digit: counting it let a positive value of 131,073 digits through, which the flush then failed on.
 */
function tooManyDigits(text: string): string | undefined {
  let from = text.startsWith('-') || text.startsWith('+') ? 1 : 0;
  if (text.length - from <= NUMERIC_MAX_DIGITS) return undefined;
  while (from < text.length - 1 && text[from] === '0') from++;
  return text.length - from > NUMERIC_MAX_DIGITS ? `has more than ${NUMERIC_MAX_DIGITS} digits` : undefined;
}

/** ES2024's String.prototype.isWellFormed, which Node 20 has (the TypeScript library here is ES2022's) */
const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

/** What is wrong with a string the database must store as text, if anything. */
export function textProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return 'holds a NUL byte (\\u0000), which PostgreSQL text cannot store';
  // isWellFormed first: the same answer as the regular expression, about ten times sooner on the usual string
  if (!isWellFormed(s) && LONE_SURROGATE.test(s)) return 'holds a lone surrogate (half of a UTF-16 pair), which PostgreSQL text would store as U+FFFD';
  return undefined;
}

function show(value: unknown): string {
  let s: string;
  try {
    s =
      typeof value === 'bigint'
        ? `${value}n`
        : value instanceof Date
          ? `Date(${value.getTime()})`
          : typeof value === 'string'
            ? JSON.stringify(value)
            : (JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(value));
  } catch {
    s = String(value);
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

const expected = (what: string, value: unknown) =>
  `expected ${what}, got ${typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) ? 'an object ' : ''}${show(value)}`;

const text: Check = (v) => (typeof v !== 'string' ? expected('a string', v) : textProblem(v));

const SCALAR_CHECKS: Record<Scalar, Check> = {
  ID: text,
  String: text,
  Int: (v) => (int32Of(v) !== undefined ? undefined : expected('a 32-bit integer', v)),
  BigInt: (v) => {
    if (typeof v === 'bigint') return v < FEWER_DIGITS_THAN_NUMERIC && v > MINUS_FEWER_DIGITS_THAN_NUMERIC ? undefined : tooManyDigits(v.toString());
    if (typeof v === 'number' && Number.isSafeInteger(v)) return undefined;
    if (typeof v === 'string' && isIntegerText(v)) return tooManyDigits(v);
    return expected('a bigint', v);
  },
  BigDecimal: (v) => (decimalTextOf(v) !== undefined ? undefined : expected('a decimal number', v)),
  Float: (v) => (typeof v === 'number' ? undefined : expected('a number', v)),
  Boolean: (v) => (typeof v === 'boolean' ? undefined : expected('a boolean', v)),
  Date: (v) => {
    const d = v instanceof Date ? v : typeof v === 'string' || typeof v === 'number' ? new Date(v) : undefined;
    if (d === undefined) return expected('a Date', v);
    const ms = d.getTime();
    if (Number.isNaN(ms)) return `expected a valid Date, got an invalid one (${v instanceof Date ? 'new Date(NaN)' : show(v)})`;
    return ms < MIN_DATE_MS ? `the Date ${d.toISOString()} is before 4713 BC, the earliest PostgreSQL stores` : undefined;
  },
  Bytes: (v) =>
    v instanceof Uint8Array || (typeof v === 'string' && isHexText(v)) ? undefined : expected('bytes (a Uint8Array or a 0x-hex string of whole bytes)', v),
  JSON: (v) => jsonProblem(v, 0),
};

/** jsonb refuses \u0000 and lone surrogates in strings and keys; a cycle never serialises. */
function jsonProblem(v: unknown, depth: number): string | undefined {
  if (depth > 100) return 'is nested more than 100 levels deep (a circular reference?)';
  if (typeof v === 'string') return textProblem(v);
  if (v === null || typeof v !== 'object' || v instanceof Date) return undefined;
  if (Array.isArray(v)) {
    for (const item of v) {
      const p = jsonProblem(item, depth + 1);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  for (const [k, item] of Object.entries(v)) {
    const p = textProblem(k) ?? jsonProblem(item, depth + 1);
    if (p !== undefined) return `${JSON.stringify(k)}: ${p}`;
  }
  return undefined;
}

function checkOf(field: FieldModel, model: SchemaModel): Check {
  const t = field.type;
  switch (t.kind) {
    case 'scalar':
      return SCALAR_CHECKS[t.scalar];
    case 'json':
      return SCALAR_CHECKS.JSON;
    case 'entity':
      return (v) => (typeof v === 'string' ? textProblem(v) : expected(`the id of a ${t.entity} (a string)`, v));
    case 'enum': {
      const values = new Set(model.enums.find((e) => e.name === t.name)?.values ?? []);
      return (v) =>
        typeof v === 'string' && values.has(v) ? undefined : expected(`one of ${[...values].map((x) => JSON.stringify(x)).join(', ')} (enum ${t.name})`, v);
    }
  }
}

const utf8Length = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? (i++, 4) : 3;
  }
  return n;
};

interface FieldRule {
  property: string;
  field: FieldModel;
  check: Check;
}

interface IndexedProperty {
  property: string;
  /** a Bytes field: `bytea` holds half as many bytes as its hex text */
  bytes: boolean;
}

interface EntityRules {
  fields: FieldRule[];
  /** the properties of each index holding text or bytes (the id's, field and composite indexes) */
  indexes: IndexedProperty[][];
}

function rulesOf(entity: EntityModel, model: SchemaModel): EntityRules {
  const fields: FieldRule[] = [];
  const byColumn = new Map<string, FieldRule>();
  for (const field of entity.fields) {
    if (field.column === undefined || field.derivedFrom !== undefined) continue;
    const rule = { property: propertyName(field), field, check: checkOf(field, model) };
    fields.push(rule);
    byColumn.set(field.column, rule);
  }
  const holdsText = (r: FieldRule | undefined): r is FieldRule =>
    r !== undefined &&
    !r.field.list &&
    (r.field.type.kind === 'entity' || (r.field.type.kind === 'scalar' && ['ID', 'String', 'Bytes'].includes(r.field.type.scalar)));
  const indexed = (r: FieldRule): IndexedProperty => ({ property: r.property, bytes: r.field.type.kind === 'scalar' && r.field.type.scalar === 'Bytes' });
  const indexes: IndexedProperty[][] = [[{ property: 'id', bytes: false }]];
  for (const r of fields) if (r.field.index !== undefined && r.property !== 'id' && holdsText(r)) indexes.push([indexed(r)]);
  for (const ix of entity.indexes) {
    const props = ix.columns
      .map((c) => byColumn.get(c))
      .filter(holdsText)
      .map(indexed);
    if (props.length > 0) indexes.push(props);
  }
  return { fields, indexes };
}

function invalid(entity: string, id: string, message: string): IdxError {
  return new IdxError('STORE_INVALID_VALUE', `${entity} ${show(id)}: ${message}`);
}

export function createEntityValidator(model: SchemaModel): EntityValidator {
  const rules = new Map(model.entities.map((e) => [e.name, rulesOf(e, model)]));
  return (entity, id, data) => {
    const r = rules.get(entity);
    const fail = (message: string) => invalid(entity, id, message);
    if (r === undefined) {
      throw new IdxError(
        'STORE_UNKNOWN_ENTITY',
        `no entity named "${entity}" in schema.graphql (it has ${model.entities.map((e) => e.name).join(', ') || 'none'})`,
      );
    }
    for (const { property, field, check } of r.fields) {
      const value = property === 'id' ? id : data[property];
      if (value === null || value === undefined) {
        if (!field.nullable) throw fail(`${property} is required (non-null in schema.graphql), got ${String(value)}`);
        continue;
      }
      if (field.list && !(field.type.kind === 'scalar' && field.type.scalar === 'JSON') && field.type.kind !== 'json') {
        if (!Array.isArray(value)) throw fail(`${property}: expected a list, got ${show(value)}`);
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (item === null || item === undefined) {
            if (!field.itemNullable) throw fail(`${property}[${i}]: the list's items may not be null`);
            continue;
          }
          const p = check(item);
          if (p !== undefined) throw fail(`${property}[${i}]: ${p}`);
        }
        continue;
      }
      const p = check(value);
      if (p !== undefined) throw fail(`${property}: ${p}`);
    }
    for (const props of r.indexes) {
      // a UTF-16 unit is at most 3 bytes of UTF-8 (a pair, 2 units, is 4): most values are counted no further
      let most = 0;
      for (const p of props) {
        const v = p.property === 'id' ? id : data[p.property];
        most += typeof v === 'string' ? v.length * 3 : v instanceof Uint8Array ? v.byteLength : 0;
      }
      if (most <= INDEXED_TEXT_MAX_BYTES) continue;
      let bytes = 0;
      for (const p of props) {
        const v = p.property === 'id' ? id : data[p.property];
        if (typeof v === 'string') bytes += p.bytes ? (v.length - 2) / 2 : utf8Length(v);
        else if (v instanceof Uint8Array) bytes += v.byteLength;
      }
      if (bytes > INDEXED_TEXT_MAX_BYTES) {
        throw fail(
          `${props.map((p) => p.property).join(' + ')} ${props.length > 1 ? 'are' : 'is'} ${bytes} bytes, above the ${INDEXED_TEXT_MAX_BYTES} bytes an indexed value may hold (PostgreSQL's btree limit); keep long text in a field without @index, or index a hash of it`,
        );
      }
    }
  };
}
