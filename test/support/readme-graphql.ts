import { readFileSync } from 'node:fs';
import { Kind, parse } from 'graphql';

export interface ReadmeGraphql {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  /** where it was found, for assertion messages */
  where: string;
}

/**
 * The GraphQL a reader copies from a markdown file: the bodies of `curl … -d '{"query": …}'`
 * commands and the contents of ```graphql blocks. The examples are written for the starter
 * project; a block right after `<!-- example project: zoo -->` is for test/support/zoo-project.ts
 * and is returned only when `project` is `zoo`, one after `<!-- example project: subgraph -->` (or
 * a curl to a `/subgraph…` path) is for the starter project in The Graph's dialect
 * (`idx-query --subgraph`) and is returned only when `project` is `subgraph`.
 */
export function readmeGraphql(file: string, project: 'starter' | 'zoo' | 'subgraph' = 'starter'): ReadmeGraphql[] {
  const text = readFileSync(file, 'utf8');
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const out: ReadmeGraphql[] = [];
  for (const m of text.matchAll(/(<!-- example project: (\w+) -->\s*)?```graphql\s*\n([\s\S]*?)```/g)) {
    if ((m[2] ?? 'starter') !== project) continue;
    // a schema (type definitions only) is shown, not sent
    if (definesTypesOnly(m[3]!)) continue;
    out.push({ query: m[3]!, where: `${file}:${lineOf(m.index!)} (graphql block)` });
  }
  for (const m of text.matchAll(/curl\s[^`]*?(?:-d|--data(?:-raw)?)\s+'([^']*)'/g)) {
    // a curl to idx-query's /subgraph… paths speaks The Graph's dialect
    if ((/\/subgraph/.test(m[0]) ? 'subgraph' : 'starter') !== project) continue;
    let body: unknown;
    try {
      body = JSON.parse(m[1]!);
    } catch {
      continue;
    }
    if (body === null || typeof body !== 'object' || typeof (body as { query?: unknown }).query !== 'string') continue;
    const { query, variables, operationName } = body as ReadmeGraphql;
    out.push({ query, variables, operationName, where: `${file}:${lineOf(m.index!)} (curl)` });
  }
  return out;
}

function definesTypesOnly(text: string): boolean {
  try {
    return parse(text).definitions.every((d) => d.kind !== Kind.OPERATION_DEFINITION && d.kind !== Kind.FRAGMENT_DEFINITION);
  } catch {
    return false;
  }
}
