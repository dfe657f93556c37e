import type { EntityModel, FieldModel, SchemaModel, Scalar } from '../../domain/entities/entity-model.ts';
import { propertyName } from '../../domain/entities/property-name.ts';
import { decimalTextOf, int32Of, isHexText, isIntegerText } from '../../domain/entities/scalar-values.ts';
import { IdxError } from '../../domain/errors.ts';
import { qualified, quoteIdent } from './sql.ts';

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
 * Bytes are stored as `text` holding lowercase 0x-hex, not `bytea`: mappings hand us and expect
 * hex strings (SubQuery's codegen types Bytes as string), GraphQL shows hex, and equality filters
 * and indexes then work on the same form the user sees, with no conversion on either side.
 */
const SCALAR_SQL: Record<Scalar, string> = {
  ID: 'text',
  String: 'text',
  Int: 'integer',
  BigInt: 'numeric',
  Float: 'double precision',
  Boolean: 'boolean',
  Date: 'timestamptz',
  Bytes: 'text',
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
  Date: (v, where) => {
    const d = v instanceof Date ? v : typeof v === 'string' || typeof v === 'number' ? new Date(v) : undefined;
    if (d === undefined || Number.isNaN(d.getTime())) throw invalid(where, 'a Date', v);
    return d.toISOString();
  },
  Bytes: (v, where) => {
    if (v instanceof Uint8Array) return bytesToHex(v);
    if (typeof v === 'string' && isHexText(v)) return v.toLowerCase();
    throw invalid(where, 'bytes (a Uint8Array or a 0x-hex string)', v);
  },
  JSON: (v) => toJsonText(v),
};

function encodeString(v: unknown, where: () => string): string {
  if (typeof v !== 'string') throw invalid(where, 'a string', v);
  return v;
}

const identity: Decode = (raw) => raw;

const scalarDecoders: Record<Scalar, Decode> = {
  ID: identity,
  String: identity,
  Int: identity,
  BigInt: (raw) => BigInt(raw as string),
  BigDecimal: (raw) => String(raw),
  Float: (raw) => (typeof raw === 'number' ? raw : Number(raw)),
  Boolean: identity,
  Date: (raw) => (raw instanceof Date ? raw : new Date(raw as string)),
  Bytes: identity,
  JSON: (raw) => (typeof raw === 'string' ? JSON.parse(raw) : raw),
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
  let base: string;
  let encodeItem: Encode;
  let decodeItem: Decode;
  // JSON-ish lists are one jsonb array rather than jsonb[]: simpler to filter and what GraphQL shows.
  let jsonWhole = false;
  const t = field.type;
  switch (t.kind) {
    case 'scalar':
      base = SCALAR_SQL[t.scalar];
      encodeItem = scalarEncoders[t.scalar];
      decodeItem = scalarDecoders[t.scalar];
      jsonWhole = t.scalar === 'JSON';
      break;
    case 'json':
      base = 'jsonb';
      encodeItem = scalarEncoders.JSON;
      decodeItem = scalarDecoders.JSON;
      jsonWhole = true;
      break;
    case 'enum':
      base = enumSqlType(schema, t.name, model);
      encodeItem = encodeString;
      decodeItem = identity;
      break;
    case 'entity':
      base = 'text';
      encodeItem = encodeString;
      decodeItem = identity;
      break;
  }
  const nullable = field.nullable;
  if (!field.list || jsonWhole) {
    return {
      field,
      column,
      property,
      sqlType: base,
      nullable,
      select: ref,
      encode(value) {
        if (value === null || value === undefined) {
          if (!nullable) throw invalid(where, 'a value (the field is required)', value);
          return null;
        }
        if (jsonWhole) return toJsonText(value);
        return encodeItem(value, where);
      },
      decode: (raw) => (raw === null || raw === undefined ? null : decodeItem(raw)),
    };
  }
  const itemNullable = field.itemNullable;
  // Drivers only parse arrays of built-in types, and `pg` parses numeric[] into lossy floats:
  // those arrive as text[] instead and are decoded here.
  const asText = t.kind === 'enum' || base === 'numeric';
  return {
    field,
    column,
    property,
    sqlType: `${base}[]`,
    nullable,
    select: asText ? `${ref}::text[] as ${ref}` : ref,
    encode(value) {
      if (value === null || value === undefined) {
        if (!nullable) throw invalid(where, 'a list (the field is required)', value);
        return null;
      }
      if (!Array.isArray(value)) throw invalid(where, 'a list', value);
      const parts = value.map((item) => {
        if (item === null || item === undefined) {
          if (!itemNullable) throw invalid(where, 'list items that are not null', value);
          return arrayElement(null);
        }
        return arrayElement(encodeItem(item, where));
      });
      return `{${parts.join(',')}}`;
    },
    decode: (raw) => (raw === null || raw === undefined ? null : (raw as unknown[]).map((item) => (item === null ? null : decodeItem(item)))),
  };
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
