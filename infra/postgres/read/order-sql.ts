import { quoteIdent } from '../sql.ts';
import type { SqlParams } from './sql-params.ts';

/** One key of an ORDER BY: a column (or a value computed for the row) and its direction and NULLs' place. */
export interface SqlOrderKey {
  column: { column: string; sqlType: string; nullable: boolean };
  desc: boolean;
  nullsFirst: boolean;
  /** a value computed for the row `alias` (a related row's column), instead of one of its columns */
  expr?: (alias: string) => string;
}

/** the key's value for the row `alias` */
function keyRef(alias: string, k: SqlOrderKey): string {
  return k.expr === undefined ? `${alias}.${quoteIdent(k.column.column)}` : k.expr(alias);
}

export function orderBySql(alias: string, keys: readonly SqlOrderKey[]): string {
  return keys
    .map((k) => {
      const defaultNullsFirst = k.desc;
      const nulls = k.nullsFirst === defaultNullsFirst ? '' : k.nullsFirst ? ' nulls first' : ' nulls last';
      return `${keyRef(alias, k)}${k.desc ? ' desc' : ''}${nulls}`;
    })
    .join(', ');
}

/** The text form of each key of a row, selected as `__k0…`: cursors hold exact values, timestamps included. */
export function cursorColumnsSql(alias: string, keys: readonly SqlOrderKey[]): string {
  return keys.map((k, i) => `${keyRef(alias, k)}::text as __k${i}`).join(', ');
}

/**
 * Rows strictly after the cursor in the order of `keys`. When every key is non-null and all go the
 * same way this is one row comparison `(a, id) > (x, y)`, which an index on `(a, id)` answers by a
 * range scan; otherwise the lexicographic expansion, with NULLs placed as the order places them.
 */
export function afterCursorSql(alias: string, keys: readonly SqlOrderKey[], values: readonly (string | null)[], params: SqlParams): string {
  const ref = (k: SqlOrderKey) => keyRef(alias, k);
  const value = (k: SqlOrderKey, v: string) => params.add(v, k.column.sqlType);
  const uniform = keys.every((k, i) => !k.column.nullable && values[i] !== null && k.desc === keys[0]!.desc);
  if (uniform) {
    if (keys.length === 1) return `${ref(keys[0]!)} ${keys[0]!.desc ? '<' : '>'} ${value(keys[0]!, values[0]!)}`;
    return `(${keys.map(ref).join(', ')}) ${keys[0]!.desc ? '<' : '>'} (${keys.map((k, i) => value(k, values[i]!)).join(', ')})`;
  }
  const ors: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = values[i] ?? null;
    let after: string;
    if (v === null) after = k.nullsFirst ? `${ref(k)} is not null` : 'false';
    else {
      const cmp = `${ref(k)} ${k.desc ? '<' : '>'} ${value(k, v)}`;
      after = !k.nullsFirst && k.column.nullable ? `(${cmp} or ${ref(k)} is null)` : cmp;
    }
    const equal = keys.slice(0, i).map((e, j) => (values[j] === null ? `${ref(e)} is null` : `${ref(e)} = ${value(e, values[j]!)}`));
    if (after !== 'false') ors.push([...equal, after].join(' and '));
  }
  return ors.length === 0 ? 'false' : ors.map((o) => `(${o})`).join(' or ');
}
