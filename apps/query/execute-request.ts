import {
  execute,
  getOperationAST,
  GraphQLError,
  Kind,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Logger } from '../../infra/logging/create-logger.ts';
import { complexityError, queryComplexity } from './query-complexity.ts';
import { timeoutError, type QueryContext } from './query-context.ts';
import { checkSelections, checkVariables, jsonSizeOver, parseBounded, REQUEST_LIMITS, responseTooLargeError } from './request-limits.ts';

/** A GraphQL request as it came over HTTP (GET query string or POST JSON body). */
export interface GraphqlRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  method: 'GET' | 'POST';
}

export interface GraphqlResponse {
  status: number;
  body: { data?: unknown; errors?: GraphQLFormattedError[] };
}

export interface ExecuteDeps {
  schema: GraphQLSchema;
  context: QueryContext;
  queryComplexity: number;
  logger?: Logger;
}

const requestError = (status: number, code: string, message: string): GraphqlResponse => ({
  status,
  body: { errors: [{ message, extensions: { code } }] },
});

/** texts longer than this are parsed each time, so that the cache cannot hold megabytes per entry */
const CACHED_TEXT = 16 * 1024;
/** introspection answers kept per schema (each is a few hundred KB at most) */
const INTROSPECTION_ANSWERS = 8;

/** an operation that selects only `__schema`, `__type` and `__typename` at its root */
function introspectionOnly(op: OperationDefinitionNode): boolean {
  return op.selectionSet.selections.every((s) => s.kind === Kind.FIELD && s.name.value.startsWith('__'));
}

/** Parsed documents and their validation, kept per query text: clients send the same queries again and again. */
export class DocumentCache {
  private docs = new Map<string, DocumentNode | GraphQLError>();
  private valid = new WeakMap<GraphQLSchema, Map<string, readonly GraphQLError[]>>();

  private introspected = new WeakMap<GraphQLSchema, Map<string, ExecutionResult>>();

  constructor(private readonly size = 500) {}

  /**
   * The answers of introspection-only queries, per schema and query text: GraphiQL and client
   * generators send the same large introspection query again and again, and its answer changes
   * only with the schema.
   */
  introspection(schema: GraphQLSchema, key: string, run: () => ExecutionResult | Promise<ExecutionResult>): ExecutionResult | Promise<ExecutionResult> {
    let bySchema = this.introspected.get(schema);
    if (bySchema === undefined) this.introspected.set(schema, (bySchema = new Map()));
    const hit = bySchema.get(key);
    if (hit !== undefined) return hit;
    return Promise.resolve(run()).then((result) => {
      if (result.errors === undefined && key.length <= CACHED_TEXT) {
        if (bySchema.size >= INTROSPECTION_ANSWERS) bySchema.delete(bySchema.keys().next().value!);
        bySchema.set(key, result);
      }
      return result;
    });
  }

  parse(query: string): DocumentNode | GraphQLError {
    let doc = this.docs.get(query);
    if (doc === undefined) {
      doc = parseBounded(query);
      if (query.length > CACHED_TEXT) return doc;
      if (this.docs.size >= this.size) this.docs.delete(this.docs.keys().next().value!);
      this.docs.set(query, doc);
    }
    return doc;
  }

  validate(schema: GraphQLSchema, query: string, doc: DocumentNode): readonly GraphQLError[] {
    let bySchema = this.valid.get(schema);
    if (bySchema === undefined) this.valid.set(schema, (bySchema = new Map()));
    let errors = bySchema.get(query);
    if (errors === undefined) {
      errors = validate(schema, doc);
      if (query.length > CACHED_TEXT) return errors;
      if (bySchema.size >= this.size) bySchema.delete(bySchema.keys().next().value!);
      bySchema.set(query, errors);
    }
    return errors;
  }
}

function parseVariables(v: unknown): Record<string, unknown> | GraphqlResponse {
  if (v === undefined || v === null || v === '') return {};
  if (typeof v === 'string') {
    try {
      return parseVariables(JSON.parse(v));
    } catch {
      return requestError(400, 'BAD_REQUEST', 'variables must be a JSON object');
    }
  }
  if (typeof v !== 'object' || Array.isArray(v)) return requestError(400, 'BAD_REQUEST', 'variables must be a JSON object');
  return v as Record<string, unknown>;
}

/** An error as the client sees it: every error has `extensions.code`; unexpected ones are logged. */
export function formatError(err: GraphQLError, logger?: Logger): GraphQLFormattedError {
  const formatted = err.toJSON();
  if (typeof formatted.extensions?.code === 'string') return formatted;
  const original = err.originalError;
  if (original !== undefined && !(original instanceof GraphQLError)) {
    logger?.error(`unexpected error in a resolver: ${original.stack ?? original.message}`);
    return { ...formatted, extensions: { ...formatted.extensions, code: 'INTERNAL_SERVER_ERROR' } };
  }
  return { ...formatted, extensions: { ...formatted.extensions, code: 'GRAPHQL_EXECUTION_ERROR' } };
}

/**
 * One GraphQL request: parse, validate, check complexity, execute within `--query-timeout`.
 * Request errors (bad syntax, unknown fields, too complex) answer 400 with no data; errors while
 * executing answer 200 with the data that could be read, as GraphQL over HTTP prescribes.
 */
export async function executeRequest(req: GraphqlRequest, deps: ExecuteDeps, cache: DocumentCache): Promise<GraphqlResponse> {
  const { schema, context, logger } = deps;
  if (typeof req.query !== 'string' || req.query.trim() === '') {
    return requestError(400, 'BAD_REQUEST', req.method === 'GET' ? 'a GraphQL GET request needs ?query=' : 'the request body needs a "query" string');
  }
  if (req.operationName != null && typeof req.operationName !== 'string') return requestError(400, 'BAD_REQUEST', 'operationName must be a string');
  const variables = parseVariables(req.variables);
  if ('status' in variables && 'body' in variables) return variables as GraphqlResponse;
  const deep = checkVariables(variables);
  if (deep !== undefined) return { status: 400, body: { errors: [deep.toJSON()] } };
  const doc = cache.parse(req.query);
  if (doc instanceof GraphQLError)
    return { status: 400, body: { errors: [{ ...doc.toJSON(), extensions: { code: 'GRAPHQL_PARSE_FAILED', ...doc.extensions } }] } };
  const tooLarge = checkSelections(doc);
  if (tooLarge !== undefined) return { status: 400, body: { errors: [tooLarge.toJSON()] } };
  const invalid = cache.validate(schema, req.query, doc);
  if (invalid.length > 0) return { status: 400, body: { errors: invalid.map((e) => ({ ...e.toJSON(), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) } };
  const operationName = (req.operationName as string | null | undefined) ?? undefined;
  const op = getOperationAST(doc, operationName);
  if (op == null)
    return requestError(
      400,
      'BAD_REQUEST',
      operationName ? `no operation named "${operationName}"` : 'the document has several operations: give operationName',
    );
  if (op.operation === 'subscription') return requestError(400, 'BAD_REQUEST', 'subscriptions run over WebSocket (graphql-ws), not HTTP requests');
  if (op.operation === 'mutation' && req.method === 'GET') return requestError(405, 'BAD_REQUEST', 'mutations need POST');

  const complexity = queryComplexity(schema, doc, operationName, variables as Record<string, unknown>);
  if (complexity > deps.queryComplexity) return { status: 400, body: { errors: [complexityError(complexity, deps.queryComplexity).toJSON()] } };

  const args = { schema, document: doc, variableValues: variables as Record<string, unknown>, operationName, contextValue: context };
  const result =
    introspectionOnly(op) && Object.keys(variables).length === 0
      ? await cache.introspection(schema, `${operationName ?? ''}\n${req.query}`, () => executeWithin(args))
      : await executeWithin(args);
  return { status: 200, body: shapeResult(result, logger) };
}

let introspecting: Promise<unknown> = Promise.resolve();

/**
 * Introspection runs synchronously from start to end (tens of ms on a large schema): one at a
 * time, each in its own turn of the event loop, so that other requests answer between them
 * however many clients introspect at once. A turn that comes past the request's deadline is skipped.
 */
function oneIntrospectionAtATime<T>(run: () => T): Promise<T> {
  const result = introspecting.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(run);
  introspecting = result.catch(() => undefined);
  return result;
}

/**
 * graphql-js's execute bounded by the context's `--query-timeout` deadline (resolvers included,
 * not only SQL) and by the size of its answer: past either, the answer is one clean error. Work
 * still running after the deadline stops at its next statement (`QueryContext.sql` checks it).
 */
export async function executeWithin(args: ExecutionArgs & { contextValue: QueryContext }): Promise<ExecutionResult> {
  const context = args.contextValue;
  const ms = context.settings.queryTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, context.deadline - Date.now()))));
  try {
    const op = getOperationAST(args.document, args.operationName);
    const work =
      op != null && introspectionOnly(op) ? oneIntrospectionAtATime(() => (Date.now() > context.deadline ? 'timeout' : execute(args))) : execute(args);
    const result = await Promise.race([Promise.resolve(work), timedOut]);
    if (result === 'timeout') return { data: null, errors: [timeoutError(ms)] };
    if (jsonSizeOver(result, REQUEST_LIMITS.maxResponseBytes)) return { data: null, errors: [responseTooLargeError()] };
    return result.errors?.some((e) => e.message.length > MAX_MESSAGE) ? { ...result, errors: result.errors.map(shortError) } : result;
  } finally {
    clearTimeout(timer);
  }
}

/** graphql-js quotes a refused variable whole in its message: keep its start and its reason (at the end) */
const MAX_MESSAGE = 600;

function shortError(e: GraphQLError): GraphQLError {
  if (e.message.length <= MAX_MESSAGE) return e;
  return new GraphQLError(`${e.message.slice(0, 200)}…[${e.message.length - 500} characters]…${e.message.slice(-300)}`, {
    nodes: e.nodes,
    path: e.path,
    originalError: e.originalError,
    extensions: e.extensions,
  });
}

function shapeResult(result: ExecutionResult, logger?: Logger): GraphqlResponse['body'] {
  if (result.errors === undefined || result.errors.length === 0) return { data: result.data };
  return { data: result.data, errors: result.errors.map((e) => formatError(e, logger)) };
}
