const NEEDS_ESCAPE = /[\\"]/;

/** A PostgreSQL array literal of texts; each element quoted, so no value needs sniffing. */
export function textArray(items: readonly (string | null | undefined)[]): string {
  const parts: string[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (NEEDS_ESCAPE.test(v)) parts[i] = `"${v.replace(/[\\"]/g, '\\$&')}"`;
    else parts[i] = `"${v}"`;
  }
  return `{${parts.join(',')}}`;
}

/** A PostgreSQL array literal of integers. */
export function intArray(items: readonly (number | null)[]): string {
  let out = '{';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    const v = items[i];
    out += v === null || v === undefined ? 'NULL' : String(v);
  }
  return out + '}';
}
