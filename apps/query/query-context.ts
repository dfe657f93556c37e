import { GraphQLError } from 'graphql';
import type { Kysely } from 'kysely';
import type { Logger } from '../../infra/logging/create-logger.ts';
import { execute } from '../../infra/postgres/sql.ts';
import { databaseUnavailableError, isConnectionLost, type DatabasePlace } from './database-unavailable.ts';
import type { EntityTable } from './entity-tables.ts';
import { RequestBatcher } from './request-batcher.ts';
import { REQUEST_LIMITS, rowsOverLimitError } from './request-limits.ts';

/** The flags that shape answers (docs/usage.md, idx-query). */
export interface QuerySettings {
  /** `--aggregate` */
  aggregate: boolean;
  /** `--unsafe`: sum, min, max, average, stddev*, variance* */
  unsafe: boolean;
  /** `--query-limit`: largest and default page */
  queryLimit: number;
  /** `--query-timeout`, milliseconds */
  queryTimeoutMs: number;
}

/** What `_metadata` answers: the node's `_metadata` rows, overlaid with its live `/meta` when `--indexer` is given. */
export interface MetadataSource {
  /** each chain's metadata: the schema's `_metadata`, or with `--multi-chain` every `_metadata_<chain>` (in table order) */
  chains(): Promise<Record<string, unknown>[]>;
}

/** Everything a resolver may use; one per GraphQL request (or subscription). */
export interface QueryContext {
  /** the database schema being served */
  schema: string;
  tables: ReadonlyMap<string, EntityTable>;
  settings: QuerySettings;
  batcher: RequestBatcher;
  metadata: MetadataSource;
  /** runs one statement; database failures become GraphQL errors with a code */
  sql<R = Record<string, unknown>>(text: string, params: readonly unknown[]): Promise<R[]>;
  /** the request is past `--query-timeout` (checked between statements, e.g. on PGlite) */
  deadline: number;
}

export interface QueryContextDeps {
  db: Kysely<any>;
  schema: string;
  tables: ReadonlyMap<string, EntityTable>;
  settings: QuerySettings;
  metadata: MetadataSource;
  logger?: Logger;
  /** where the database is, for the error when it cannot be reached */
  place?: DatabasePlace;
}

export function timeoutError(ms: number): GraphQLError {
  return new GraphQLError(`the query ran longer than ${ms} ms and was cancelled (--query-timeout ${ms}); narrow it with a filter or a smaller page`, {
    extensions: { code: 'QUERY_TIMEOUT', timeoutMs: ms },
  });
}

export function createQueryContext(deps: QueryContextDeps): QueryContext {
  const { settings } = deps;
  const deadline = Date.now() + settings.queryTimeoutMs;
  let rowsRead = 0;
  // a raised --query-limit raises it too: ten full pages
  const rowBudget = Math.max(REQUEST_LIMITS.maxRowsRead, 10 * settings.queryLimit);
  return {
    schema: deps.schema,
    tables: deps.tables,
    settings,
    batcher: new RequestBatcher(),
    metadata: deps.metadata,
    deadline,
    async sql<R>(text: string, params: readonly unknown[]) {
      if (Date.now() > deadline) throw timeoutError(settings.queryTimeoutMs);
      let rows: R[];
      try {
        rows = await execute<R>(deps.db, text, params);
      } catch (err) {
        const e = err as { code?: string; message?: string };
        // 57014: canceled by statement_timeout (the pool sets it to --query-timeout)
        if (e.code === '57014') throw timeoutError(settings.queryTimeoutMs);
        if (typeof e.code === 'string' && /^22/.test(e.code)) {
          // data errors come from values the user sent; the database's own words (and its SQLSTATE) stay in the log
          deps.logger?.debug(`a value was refused by the database (${e.code}): ${e.message ?? String(err)}`);
          throw new GraphQLError(dataErrorText(e.code), { extensions: { code: 'BAD_USER_INPUT' } });
        }
        // 42601 from to_tsquery: the search string of a search<Entities> field
        if (e.code === '42601' && /tsquery/.test(e.message ?? '')) {
          throw new GraphQLError(
            'search: not a valid text search query; use plain words, or operators with a word on each side: & (and), | (or), ! (not), <-> (followed by), :* (prefix), parentheses',
            { extensions: { code: 'BAD_USER_INPUT' } },
          );
        }
        deps.logger?.error(`query failed: ${e.message ?? String(err)}`, { sql: text });
        if (isConnectionLost(err)) throw databaseUnavailableError(deps.place ?? { description: 'the database' });
        throw new GraphQLError('the database failed to answer this query; the idx-query log has the cause', { extensions: { code: 'DATABASE_ERROR' } });
      }
      // nested pages multiply (100 accounts × 100 transfers × …): stop before the answer is built in memory
      rowsRead += rows.length;
      if (rowsRead > rowBudget) throw rowsOverLimitError(rowBudget);
      return rows;
    },
  };
}

/** What a PostgreSQL data error (class 22) means for the values of a query, in the user's terms. */
function dataErrorText(sqlState: string): string {
  if (sqlState === '22003') return 'a number in the query is out of range for the field it is compared with';
  if (sqlState === '22021' || sqlState === '22P05') return 'a string in the query holds a character the database cannot store (such as NUL, \\u0000)';
  if (sqlState === '22007' || sqlState === '22008') return 'a date or time in the query is malformed or out of range';
  if (sqlState === '2201B') return 'a pattern in the query is not a valid regular expression';
  if (sqlState === '22P02') return 'a value in the query is not valid for the field it is compared with';
  return 'a value in the query cannot be compared with its field';
}
