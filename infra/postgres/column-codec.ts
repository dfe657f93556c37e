import type { EntityModel, FieldModel, SchemaModel, Scalar } from '../../domain/entities/entity-model.ts';
import { propertyName } from '../../domain/entities/property-name.ts';
import { decimalTextOf, int32Of, isHexText, isIntegerText } from '../../domain/entities/scalar-values.ts';
import { IdxError } from '../../domain/errors.ts';
import { memoRecent } from '../../domain/memo-recent.ts';
import { qualified, quoteIdent } from './sql.ts';
import { parseUtcTimestamp } from './utc-timestamps.ts';

/**
 * How one entity field lives in its column: the SQL type, and JS value ↔ SQL text.
 *
 * Writes send every value as text (bulk statements pass one `text[]` per column and cast in the
 * SELECT), so `encode` yields PostgreSQL's text input form; reads take what the driver parsed.
 */
export interface ColumnCodec {
  field: FieldModel;
  column: string;
  /** key in the entity's data (`blockHeight`, `ownerId`) */
  property: string;
  /** the column type, schema-qualified for enums: used in DDL and in casts */
  sqlType: string;
  nullable: boolean;
  /** the SELECT expression that reads the column as `decode` expects it */
  select: string;
  encode(value: unknown): string | null;
  decode(raw: unknown): unknown;
}

/*
 * Column types as SubQuery's node makes them (layout 2, domain/entities/layout.ts), so SQL written
 * for a SubQuery database reads ours: Bytes `bytea`, Date `timestamp` without time zone holding UTC
 * (the drivers read it back as UTC, see utc-timestamps.ts), every list but an enum list one `jsonb`
 * array. Values read back are what mappings gave: Bytes as lowercase 0x-hex (SubQuery's store gives
 * the same), a Date as a Date, lists as arrays of the field's own values.
 */
const SCALAR_SQL: Record<Scalar, string> = {
  ID: 'text',
  String: 'text',
  Int: 'integer',
  BigInt: 'numeric',
  Float: 'double precision',
  Boolean: 'boolean',
  Date: 'timestamp',
  Bytes: 'bytea',
  BigDecimal: 'numeric',
  JSON: 'jsonb',
};

type Encode = (value: unknown, where: () => string) => string;
type Decode = (raw: unknown) => unknown;

function invalid(where: () => string, expected: string, value: unknown): IdxError {
  let shown: string;
  try {
    shown = typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    shown = String(value);
  }
  if (shown.length > 80) shown = `${shown.slice(0, 77)}...`;
  return new IdxError('STORE_INVALID_VALUE', `${where()}: expected ${expected}, got ${shown}`);
}

export function bytesToHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

/** JSON text of a value; bigints become decimal strings, since JSON has no bigint. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
}

/** Bytes as lowercase 0x-hex: what the store gives back, and how a jsonb list holds them. */
function bytesHex(v: unknown, where: () => string): string {
  if (v instanceof Uint8Array) return bytesToHex(v);
  if (typeof v === 'string' && isHexText(v)) return v.toLowerCase();
  throw invalid(where, 'bytes (a Uint8Array or a 0x-hex string of whole bytes)', v);
}

/**
 * A date's ISO text by its milliseconds: the rows of a block share its timestamp (a flush of the
 * ERC20 workload writes 20 transfers a block), and `toISOString` costs about 2.6 µs here.
 */
const isoText = memoRecent(1024, (ms: number) => new Date(ms).toISOString());

function dateOf(v: unknown, where: () => string): Date {
  const d = v instanceof Date ? v : typeof v === 'string' || typeof v === 'number' ? new Date(v) : undefined;
  if (d === undefined || Number.isNaN(d.getTime())) throw invalid(where, 'a Date', v);
  return d;
}

/** One value in PostgreSQL's text input form for its column (or its array's element). */
const scalarEncoders: Record<Scalar, Encode> = {
  ID: encodeString,
  String: encodeString,
  Int: (v, where) => {
    const n = int32Of(v);
    if (n === undefined) throw invalid(where, 'a 32-bit integer', v);
    return String(n);
  },
  BigInt: (v, where) => {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
    if (typeof v === 'string' && isIntegerText(v)) return v;
    throw invalid(where, 'a bigint', v);
  },
  BigDecimal: (v, where) => {
    const s = decimalTextOf(v);
    if (s === undefined) throw invalid(where, 'a decimal number', v);
    return s;
  },
  Float: (v, where) => {
    if (typeof v !== 'number') throw invalid(where, 'a number', v);
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return 'Infinity';
    if (v === -Infinity) return '-Infinity';
    return String(v);
  },
  Boolean: (v, where) => {
    if (typeof v !== 'boolean') throw invalid(where, 'a boolean', v);
    return v ? 't' : 'f';
  },
  // `timestamp` ignores the zone of its input: the UTC time of day is what is stored
  Date: (v, where) => isoText(dateOf(v, where).getTime()),
  Bytes: (v, where) => `\\x${bytesHex(v, where).slice(2)}`,
  JSON: (v) => toJsonText(v),
};

function encodeString(v: unknown, where: () => string): string {
  if (typeof v !== 'string') throw invalid(where, 'a string', v);
  return v;
}

type JsonItem = (value: unknown, where: () => string) => unknown;

/**
 * One item of a list as the jsonb array holds it, as SubQuery's store writes them: numbers,
 * booleans and strings as themselves, BigInt (and BigDecimal) as decimal strings, a Date as its
 * ISO text, Bytes as 0x-hex. JSON has no NaN or infinities: a Float list holds those as the strings
 * "NaN", "Infinity", "-Infinity" (and reads them back as numbers).
 */
const jsonItemEncoders: Record<Exclude<Scalar, 'JSON'>, JsonItem> = {
  ID: encodeString,
  String: encodeString,
  Int: (v, where) => Number(scalarEncoders.Int(v, where)),
  BigInt: scalarEncoders.BigInt,
  BigDecimal: scalarEncoders.BigDecimal,
  Float: (v, where) => (typeof v === 'number' && Number.isFinite(v) ? v : scalarEncoders.Float(v, where)),
  Boolean: (v, where) => (scalarEncoders.Boolean(v, where), v),
  Date: scalarEncoders.Date,
  Bytes: bytesHex,
};

const identity: Decode = (raw) => raw;

/** A column's value as the driver parsed it, back to the mapping's value. */
const scalarDecoders: Record<Scalar, Decode> = {
  ID: identity,
  String: identity,
  Int: identity,
  BigInt: (raw) => BigInt(raw as string),
  BigDecimal: (raw) => String(raw),
  Float: (raw) => (typeof raw === 'number' ? raw : Number(raw)),
  Boolean: identity,
  Date: (raw) => (raw instanceof Date ? raw : parseUtcTimestamp(String(raw))),
  Bytes: (raw) => (raw instanceof Uint8Array ? bytesToHex(raw) : `0x${String(raw).replace(/^\\x/, '')}`),
  JSON: (raw) => (typeof raw === 'string' ? JSON.parse(raw) : raw),
};

/** A jsonb list's item back to the mapping's value */
const jsonItemDecoders: Record<Exclude<Scalar, 'JSON'>, Decode> = {
  ...scalarDecoders,
  Date: (raw) => new Date(raw as string),
  Bytes: identity,
};

/** An element inside a PostgreSQL array literal: always quoted, so no value needs sniffing. */
function arrayElement(text: string | null): string {
  return text === null ? 'NULL' : `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function resolveColumn(entity: EntityModel, field: FieldModel, schema: string, model: SchemaModel): ColumnCodec {
  if (field.column === undefined) {
    throw new IdxError('STORE_INTERNAL', `${entity.name}.${field.name} has no column`);
  }
  const column = field.column;
  const property = propertyName(field);
  const where = () => `${entity.name}.${property}`;
  const ref = quoteIdent(column);
  const nullable = field.nullable;
  const t = field.type;
  const single = (sqlType: string, encode: Encode, decode: Decode): ColumnCodec => ({
    field,
    column,
    property,
    sqlType,
    nullable,
    select: ref,
    encode(value) {
      if (value === null || value === undefined) {
        if (!nullable) throw invalid(where, 'a value (the field is required)', value);
        return null;
      }
      return encode(value, where);
    },
    decode: (raw) => (raw === null || raw === undefined ? null : decode(raw)),
  });
  /** every item of a list through `item`, nulls checked against the field's `[T!]` */
  const items = <R>(value: unknown, item: (v: unknown) => R, empty: R): R[] => {
    if (!Array.isArray(value)) throw invalid(where, 'a list', value);
    return value.map((v) => {
      if (v !== null && v !== undefined) return item(v);
      if (!field.itemNullable) throw invalid(where, 'list items that are not null', value);
      return empty;
    });
  };

  if (t.kind === 'enum') {
    const type = enumSqlType(schema, t.name, model);
    if (!field.list) return single(type, encodeString, identity);
    // enum lists are arrays of the enum, as SubQuery makes them; drivers know no such array: read as text[]
    return {
      ...single(`${type}[]`, (v) => `{${items(v, (x) => arrayElement(encodeString(x, where)), 'NULL').join(',')}}`, identity),
      select: `${ref}::text[] as ${ref}`,
    };
  }
  if (t.kind === 'entity') return single('text', encodeString, identity);
  // a JSON value, or a list of them, is one jsonb value
  if (t.kind === 'json' || t.scalar === 'JSON') return single('jsonb', (v) => toJsonText(v), scalarDecoders.JSON);
  const scalar = t.scalar;
  if (!field.list) return single(SCALAR_SQL[scalar], scalarEncoders[scalar], scalarDecoders[scalar]);
  const encodeItem = jsonItemEncoders[scalar];
  const decodeItem = jsonItemDecoders[scalar];
  return single(
    'jsonb',
    (v) => JSON.stringify(items(v, (x) => encodeItem(x, where), null)),
    (raw) => {
      const arr = typeof raw === 'string' ? (JSON.parse(raw) as unknown[]) : (raw as unknown[]);
      return arr.map((x) => (x === null ? null : decodeItem(x)));
    },
  );
}

/** An enum's type, qualified with the project schema. */
export function enumSqlType(schema: string, enumName: string, model: SchemaModel): string {
  const pgName = model.enums.find((e) => e.name === enumName)?.pgName;
  return qualified(schema, pgName ?? enumName);
}

/** The columns of an entity's fields (virtual `@derivedFrom` fields have none), with enum types resolved. */
export function resolveColumns(entity: EntityModel, model: SchemaModel, schema: string): ColumnCodec[] {
  const columns: ColumnCodec[] = [];
  for (const field of entity.fields) {
    if (field.column === undefined || field.derivedFrom !== undefined) continue;
    if (field.column === 'id') continue;
    columns.push(resolveColumn(entity, field, schema, model));
  }
  return columns;
}
