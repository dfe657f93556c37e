import { getIntrospectionQuery, type IntrospectionQuery, type IntrospectionTypeRef } from 'graphql';

/** The introspection of the GraphQL service at `url`. */
export async function introspect(url: string): Promise<IntrospectionQuery> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery({ descriptions: false }) }),
  });
  const body = (await res.json()) as { data?: IntrospectionQuery; errors?: unknown };
  if (body.data === undefined) throw new Error(`introspection of ${url} failed: ${JSON.stringify(body.errors)}`);
  return body.data;
}

function typeText(t: IntrospectionTypeRef): string {
  if (t.kind === 'NON_NULL') return `${typeText(t.ofType)}!`;
  if (t.kind === 'LIST') return `[${typeText(t.ofType)}]`;
  return t.name;
}

/**
 * Every name a schema gives, one line each: its types, their fields (with their types and
 * arguments), input fields and enum values: `type NewTTL`, `NewTTL.priceETH: BigFloat`,
 * `Query.newTTLs(filter: NewTTLFilter)`, `NewTtlsOrderBy.PRICE_E_T_H_ASC`.
 */
export function schemaNames(schema: IntrospectionQuery): Set<string> {
  const out = new Set<string>();
  for (const t of schema.__schema.types) {
    if (t.name.startsWith('__')) continue;
    out.add(`${t.kind.toLowerCase()} ${t.name}`);
    if (t.kind === 'OBJECT' || t.kind === 'INTERFACE') {
      for (const f of t.fields) {
        out.add(`${t.name}.${f.name}: ${typeText(f.type)}`);
        for (const a of f.args) out.add(`${t.name}.${f.name}(${a.name}: ${typeText(a.type)})`);
      }
    } else if (t.kind === 'INPUT_OBJECT') {
      for (const f of t.inputFields) out.add(`${t.name}.${f.name}: ${typeText(f.type)}`);
    } else if (t.kind === 'ENUM') {
      for (const v of t.enumValues) out.add(`${t.name}.${v.name}`);
    }
  }
  return out;
}

/** The names only one of two schemas gives, each list sorted. */
export function compareSchemaNames(reference: IntrospectionQuery, ours: IntrospectionQuery): { onlyReference: string[]; onlyOurs: string[] } {
  const a = schemaNames(reference);
  const b = schemaNames(ours);
  return { onlyReference: [...a].filter((n) => !b.has(n)).sort(), onlyOurs: [...b].filter((n) => !a.has(n)).sort() };
}
