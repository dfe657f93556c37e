/**
 * Turns what a project.ts exports into YAML/JSON-shaped data: Maps (SubQuery templates write
 * `assets: new Map([...])`) become objects, Sets become lists, undefined properties are dropped.
 */
export function toPlainData(value: unknown): unknown {
  const tag = Object.prototype.toString.call(value);
  if (tag === '[object Map]') {
    return Object.fromEntries([...(value as Map<unknown, unknown>)].map(([k, v]) => [String(k), toPlainData(v)]));
  }
  if (tag === '[object Set]') return [...(value as Set<unknown>)].map(toPlainData);
  if (Array.isArray(value)) return value.map(toPlainData);
  if (typeof value === 'object' && value !== null && tag === '[object Object]') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, toPlainData(v)]),
    );
  }
  return value;
}
