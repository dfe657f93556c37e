import { GraphQLError, Kind, parse, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * The bounds every request meets, over HTTP and graphql-ws alike, so that one client cannot take
 * the process's memory or event loop (docs/graphql.md, Limits). They are checked in the order of
 * the work they save: text before parsing, the document before validation (graphql-js's
 * overlapping-fields rule is quadratic in the number of fields), the answer before it is sent.
 */
export const REQUEST_LIMITS = {
  /** bytes of an HTTP body or of one websocket message */
  maxMessageBytes: 1024 * 1024,
  /** GraphQL tokens of a document; the standard introspection query has a few hundred */
  maxTokens: 20_000,
  /** nesting of `{ [ (` in the query text and of objects/arrays in the variables */
  maxDepth: 64,
  /** field selections of a document, fragments expanded where spread, aliases and spreads included */
  maxSelections: 2_000,
  /** `__schema` selections per request (GraphiQL sends one) */
  maxSchemaFields: 1,
  /** `__type` selections per request */
  maxTypeFields: 10,
  /**
   * a type's member lists (`fields`, `inputFields`, `enumValues`, `interfaces`, `possibleTypes`)
   * nested in one another under introspection: `types { fields { args … } }` has 1, while
   * `fields { type { fields { type { fields … } } } }` multiplies by every level
   */
  maxIntrospectionNesting: 1,
  /** rows one request may read from the database, all statements together (or ten pages of `--query-limit`, if more) */
  maxRowsRead: 50_000,
  /** bytes of a serialized answer */
  maxResponseBytes: 16 * 1024 * 1024,
} as const;

/** bytes as people read them: 1 MB, 16 MB */
const mb = (bytes: number) => `${bytes / (1024 * 1024)} MB`;

function tooLarge(message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'QUERY_TOO_LARGE', ...extensions } });
}

export function messageTooLargeText(): string {
  return `the request is larger than ${mb(REQUEST_LIMITS.maxMessageBytes)}`;
}

/**
 * The deepest nesting of braces, brackets and parentheses in a query text (or a JSON text), ignoring
 * strings and comments; parsing a deeper text would recurse past the stack (or, for JSON.parse,
 * take seconds).
 */
export function textDepth(query: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < query.length; i++) {
    const c = query.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < query.length && query[i] !== '\n' && query[i] !== '\r') i++;
    } else if (c === 0x22 /* " */) {
      if (query.startsWith('"""', i)) {
        const end = query.indexOf('"""', i + 3);
        i = end < 0 ? query.length : end + 2;
      } else {
        for (i++; i < query.length && query[i] !== '"' && query[i] !== '\n'; i++) if (query[i] === '\\') i++;
      }
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      if (++depth > max) max = depth;
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      depth--;
    }
  }
  return max;
}

/** The nesting of a JSON value (variables), without recursion. */
export function valueDepth(value: unknown, stopAt: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > max) max = d;
    if (max > stopAt) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

function depthError(what: string): GraphQLError {
  return new GraphQLError(`${what} nested more than ${REQUEST_LIMITS.maxDepth} levels deep; flatten it (e.g. fewer nested and/or filters)`, {
    extensions: { code: 'QUERY_TOO_DEEP', limit: REQUEST_LIMITS.maxDepth },
  });
}

/** Parses a query within the token and depth bounds; a refusal is a GraphQLError with its code. */
export function parseBounded(query: string): DocumentNode | GraphQLError {
  if (textDepth(query) > REQUEST_LIMITS.maxDepth) return depthError('the query is');
  try {
    return parse(query, { maxTokens: REQUEST_LIMITS.maxTokens });
  } catch (err) {
    if (err instanceof GraphQLError && /Document contains more/.test(err.message)) {
      return tooLarge(`the query has more than ${REQUEST_LIMITS.maxTokens} tokens; split it into several requests`, { limit: REQUEST_LIMITS.maxTokens });
    }
    if (err instanceof GraphQLError) return err;
    return new GraphQLError(`the query cannot be parsed: ${(err as Error).message}`);
  }
}

export function checkVariables(variables: unknown): GraphQLError | undefined {
  return valueDepth(variables, REQUEST_LIMITS.maxDepth) > REQUEST_LIMITS.maxDepth ? depthError('the variables are') : undefined;
}

const MEMBER_LISTS = new Set(['fields', 'inputFields', 'enumValues', 'interfaces', 'possibleTypes']);

/**
 * Counts the selections of every operation of a parsed (not yet validated) document, expanding
 * fragments where they are spread, and stops at the first bound exceeded: the total, `__schema`,
 * `__type`, and member lists nested under introspection. Directives are not evaluated: a skipped
 * field still counts.
 */
export function checkSelections(doc: DocumentNode): GraphQLError | undefined {
  const L = REQUEST_LIMITS;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let selections = 0;
  let schemaFields = 0;
  let typeFields = 0;
  let refusal: GraphQLError | undefined;
  // introspection: -1 outside `__schema`/`__type`, else the member lists nested so far
  const walk = (set: SelectionSetNode, introspection: number, active: ReadonlySet<string>): void => {
    for (const sel of set.selections) {
      if (refusal !== undefined) return;
      if (++selections > L.maxSelections) {
        refusal = tooLarge(
          `the request selects more than ${L.maxSelections} fields (aliases, repeated fields and fragment spreads each count); split it into several requests`,
          { limit: L.maxSelections },
        );
        return;
      }
      if (sel.kind === Kind.FIELD) {
        const name = sel.name.value;
        let inner = introspection;
        if (name === '__schema' || name === '__type') {
          if (name === '__schema' && ++schemaFields > L.maxSchemaFields)
            refusal = tooLarge(`a request may select __schema at most ${L.maxSchemaFields} time(s)`, { limit: L.maxSchemaFields });
          if (name === '__type' && ++typeFields > L.maxTypeFields)
            refusal = tooLarge(`a request may select __type at most ${L.maxTypeFields} times`, { limit: L.maxTypeFields });
          inner = Math.max(0, introspection);
        } else if (introspection >= 0 && MEMBER_LISTS.has(name)) {
          inner = introspection + 1;
          if (inner > L.maxIntrospectionNesting) {
            refusal = tooLarge(
              `introspection nests the member lists of types (${[...MEMBER_LISTS].join(', ')}) in one another; ask for the inner type with __type(name:) instead`,
              {
                limit: L.maxIntrospectionNesting,
              },
            );
          }
        }
        if (sel.selectionSet) walk(sel.selectionSet, inner, active);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet, introspection, active);
      } else {
        const fragment = fragments.get(sel.name.value);
        // an unknown or cyclic spread is for validation to report
        if (fragment !== undefined && !active.has(fragment.name.value)) walk(fragment.selectionSet, introspection, new Set(active).add(fragment.name.value));
      }
    }
  };
  for (const d of doc.definitions) if (d.kind === Kind.OPERATION_DEFINITION) walk(d.selectionSet, -1, new Set());
  return refusal;
}

/**
 * Whether the JSON of `value` would pass `limit` bytes, measured without building it (strings
 * count their length: escapes are not counted, so the figure is a lower bound).
 */
export function jsonSizeOver(value: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') size += String(v).length;
    else if (v === null || v === undefined) size += 4;
    else if (Array.isArray(v)) {
      size += 1 + v.length;
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object') {
      if (typeof (v as { toJSON?: unknown }).toJSON === 'function') {
        size += 26;
        continue;
      }
      for (const [k, item] of Object.entries(v)) {
        size += k.length + 4;
        stack.push(item);
      }
    }
    if (size > limit) return true;
  }
  return false;
}

export function responseTooLargeError(): GraphQLError {
  const limit = REQUEST_LIMITS.maxResponseBytes;
  return new GraphQLError(`the answer is larger than ${mb(limit)}; select fewer fields or rows (smaller pages, fewer aliases)`, {
    extensions: { code: 'RESPONSE_TOO_LARGE', limit },
  });
}

export function rowsOverLimitError(limit: number): GraphQLError {
  return new GraphQLError(`the query reads more than ${limit} rows (nested pages multiply); select smaller or fewer nested pages`, {
    extensions: { code: 'RESPONSE_TOO_LARGE', limit },
  });
}
