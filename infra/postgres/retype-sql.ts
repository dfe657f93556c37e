import { createHash } from 'node:crypto';
import type { FieldModel } from '../../domain/entities/entity-model.ts';
import type { ColumnCodec } from './column-codec.ts';

/**
 * The SQL that turns a column's values into another field type's, for `--allow-schema-migration`
 * (`alter column … type … using …`). Values go through the text the store itself writes (Bytes as
 * 0x-hex, a Date as ISO 8601 UTC), so what a cast accepts is what a mapping could have written.
 */
export interface Retype {
  using: string;
  /** runs first: ALTER … USING takes no subquery, so a list's items are recast by a function */
  helper?: string;
}

const ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

const scalarOf = (f: FieldModel) => (f.type.kind === 'scalar' ? f.type.scalar : f.type.kind === 'entity' ? 'ID' : f.type.kind === 'json' ? 'JSON' : 'enum');
/** jsonb holds the whole value: a JSON field, a `@jsonField` type, or a list of either */
const wholeJson = (f: FieldModel) => scalarOf(f) === 'JSON';
/** a list stored as a jsonb array of items (every list but an enum list, and not JSON) */
const jsonList = (f: FieldModel) => f.list && scalarOf(f) !== 'enum' && !wholeJson(f);

/** A single value of `f` as the store's text. */
function textOf(f: FieldModel, ref: string): string {
  if (scalarOf(f) === 'Bytes') return `('0x' || encode(${ref}, 'hex'))`;
  if (scalarOf(f) === 'Date') return `to_char(${ref}, ${ISO_UTC})`;
  return `${ref}::text`;
}

/** The store's text as a single value of `to`. */
function fromText(to: ColumnCodec, text: string): string {
  return scalarOf(to.field) === 'Bytes' ? `decode(substr(${text}, 3), 'hex')` : `(${text})::${to.sqlType}`;
}

/** The store's text as one item of a jsonb list of `to` (BigInt as a string, a Date as its ISO text, …). */
function jsonItem(to: FieldModel, text: string): string {
  switch (scalarOf(to)) {
    case 'Int':
      return `to_jsonb((${text})::integer)`;
    case 'Float':
      return `to_jsonb((${text})::double precision)`; // NaN and infinities come out as strings, as the store writes them
    case 'Boolean':
      return `to_jsonb((${text})::boolean)`;
    case 'BigInt':
    case 'BigDecimal':
      return `to_jsonb((${text})::numeric::text)`;
    case 'Date':
      return `to_jsonb(to_char((${text})::timestamptz at time zone 'UTC', ${ISO_UTC}))`;
    case 'Bytes':
      return `to_jsonb('0x' || encode(decode(substr(${text}, 3), 'hex'), 'hex'))`;
    case 'JSON':
      return `(${text})::jsonb`;
    default:
      return `to_jsonb(${text})`;
  }
}

/** How `ref`, a column of field `from`, becomes `to`; a list never becomes a single value (the caller refuses it). */
export function retypeExpression(from: FieldModel, to: ColumnCodec, ref: string): Retype {
  const target = to.field;
  if (!from.list && !target.list) return { using: wholeJson(target) && !wholeJson(from) ? `to_jsonb(${textOf(from, ref)})` : fromText(to, textOf(from, ref)) };
  if (!from.list) {
    const item = textOf(from, ref);
    const list = jsonList(target) || wholeJson(target) ? `jsonb_build_array(${jsonItem(target, item)})` : `array[${item}]::${to.sqlType}`;
    return { using: `case when ${ref} is null then null else ${list} end` };
  }
  // list to list: each item through its text, in a function over the items as jsonb
  const x = `(x #>> '{}')`;
  const body = jsonList(target)
    ? `coalesce(jsonb_agg(case when jsonb_typeof(x) = 'null' then 'null'::jsonb else ${jsonItem(target, x)} end order by n), '[]'::jsonb)`
    : wholeJson(target)
      ? `coalesce(jsonb_agg(x order by n), '[]'::jsonb)`
      : `coalesce(array_agg(${x}::${to.sqlType.replace(/\[\]$/, '')} order by n), '{}')`;
  // named by what it does: two columns retyped alike share it, and no two different ones meet
  const name = `pg_temp.idx_relist_${createHash('sha256')
    .update(to.sqlType + body)
    .digest('hex')
    .slice(0, 16)}`;
  return {
    helper: `create or replace function ${name}(v jsonb) returns ${to.sqlType} language sql immutable strict as $f$ select ${body} from jsonb_array_elements(v) with ordinality as u(x, n) $f$`,
    using: `${name}(${jsonList(from) || wholeJson(from) ? ref : `to_jsonb(${ref}::text[])`})`,
  };
}
