/**
 * The text of a snapshot file: JSON, tests by name in name order, laid out for reading and for
 * line-by-line diffs in git: one line per field and per scalar, a block range or a tagged value
 * (`{"$bigint": "…"}`) on one line, two-space indents, a newline at the end.
 */
export function snapshotFileText(entries: Readonly<Record<string, unknown>>): string {
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(entries).sort()) sorted[name] = entries[name];
  return `${layout(sorted, '')}\n`;
}

const isScalar = (v: unknown) => v === null || typeof v !== 'object';

/** On one line: a scalar, a list of scalars, an empty list or object, or a tagged value (one key starting with `$`, holding a scalar). */
function inline(v: unknown): boolean {
  if (isScalar(v)) return true;
  if (Array.isArray(v)) return v.every(isScalar);
  const keys = Object.keys(v as object);
  return keys.length === 0 || (keys.length === 1 && keys[0]!.startsWith('$') && isScalar((v as Record<string, unknown>)[keys[0]!]));
}

function oneLine(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => JSON.stringify(x ?? null)).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    return entries.length === 0 ? '{}' : `{${entries.map(([k, x]) => `${JSON.stringify(k)}: ${JSON.stringify(x ?? null)}`).join(', ')}}`;
  }
  return JSON.stringify(v ?? null);
}

function layout(v: unknown, indent: string): string {
  if (inline(v)) return oneLine(v);
  const inner = `${indent}  `;
  if (Array.isArray(v)) return `[\n${v.map((x) => inner + layout(x, inner)).join(',\n')}\n${indent}]`;
  const entries = Object.entries(v as object).map(([k, x]) => `${inner}${JSON.stringify(k)}: ${layout(x, inner)}`);
  return `{\n${entries.join(',\n')}\n${indent}}`;
}
