import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { copyToPglite } from './copy-in.ts';

/**
 * A kysely dialect over an embedded PGlite.
 *
 * Written here because `kysely-pglite-dialect` declares PGlite ≤ 0.4 as its peer and we run 0.5.
 * PGlite is a single backend session, so the driver hands out its one connection to one holder
 * at a time: a kysely transaction keeps it from `begin` to `commit`, and every other query waits,
 * which serializes transactions exactly as separate pooled connections would isolate them.
 */
export function createPgliteDialect(pglite: PGlite): PgliteDialect {
  const gate: Gate = { held: false, waiters: [], background: [] };
  return {
    waiting: () => gate.waiters.length,
    async inBackground(fn) {
      if (gate.held || gate.waiters.length > 0) await new Promise<void>((resolve) => gate.background.push(resolve));
      gate.held = true;
      try {
        return await fn();
      } finally {
        release(gate);
      }
    },
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => createPgliteDriver(pglite, gate),
    createIntrospector: (db: Kysely<any>) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

export interface PgliteDialect extends Dialect {
  /** how many of the node's queries wait for the session: a socket client's long transaction yields to them */
  waiting(): number;
  /**
   * Runs `fn` holding the session, after every query of the node that waits or comes while it waits:
   * the socket's clients (idx-query, psql) take their turns in the background, so that a client
   * back at once after each turn cannot get in ahead of the node's next query.
   */
  inBackground<T>(fn: () => Promise<T>): Promise<T>;
}

/** The single connection's holder, the FIFO of the node's queries waiting for it, and the socket clients' turns after them. */
interface Gate {
  held: boolean;
  waiters: (() => void)[];
  background: (() => void)[];
}

function release(gate: Gate): void {
  const next = gate.waiters.shift() ?? gate.background.shift();
  if (next === undefined) gate.held = false;
  else next();
}

function createPgliteDriver(pglite: PGlite, gate: Gate): Driver {
  const connection = createPgliteConnection(pglite);
  return {
    async init() {
      await pglite.waitReady;
    },
    async acquireConnection() {
      if (gate.held) await new Promise<void>((resolve) => gate.waiters.push(resolve));
      gate.held = true;
      return connection;
    },
    async releaseConnection() {
      release(gate);
    },
    async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings) {
      let text = 'begin';
      if (settings.isolationLevel !== undefined) text += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode !== undefined) text += ` ${settings.accessMode}`;
      await conn.executeQuery(CompiledQuery.raw(text));
    },
    async commitTransaction(conn: DatabaseConnection) {
      await conn.executeQuery(CompiledQuery.raw('commit'));
    },
    async rollbackTransaction(conn: DatabaseConnection) {
      await conn.executeQuery(CompiledQuery.raw('rollback'));
    },
    async destroy() {
      if (!pglite.closed) await pglite.close();
    },
  };
}

function createPgliteConnection(pglite: PGlite): DatabaseConnection {
  return {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      if (query.parameters.length === 0) {
        // The simple protocol, as `pg` uses for parameterless queries: allows several statements
        // (migration files), and answers with the last statement's result.
        const results = await pglite.exec(query.sql);
        const last = results[results.length - 1];
        return { rows: (last?.rows ?? []) as R[], numAffectedRows: affected(last) };
      }
      const copied = await copyToPglite(pglite, query.sql, query.parameters);
      if (copied !== undefined) return { rows: [], numAffectedRows: undefined };
      const result = await pglite.query<R>(query.sql, query.parameters as unknown[]);
      return { rows: result.rows, numAffectedRows: affected(result) };
    },
    async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
      throw new Error('streaming queries are not supported on PGlite');
    },
  };
}

function affected(result: { affectedRows?: number; command?: string; rowCount?: number } | undefined): bigint | undefined {
  if (result === undefined) return undefined;
  const command = result.command?.toUpperCase();
  if (command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE') {
    return BigInt(result.rowCount ?? result.affectedRows ?? 0);
  }
  return undefined;
}
