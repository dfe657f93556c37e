import { GraphQLError } from 'graphql';

/** What a driver says when the server is gone, not when a statement fails: no socket, a refused or dropped connection. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

export function isConnectionLost(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  return typeof e?.message === 'string' && /Connection terminated|connection error|timeout exceeded when trying to connect/i.test(e.message);
}

/** Where the query service's database lives, for the words of the error when it cannot be reached. */
export interface DatabasePlace {
  /** embedded: the project folder of the idx-node serving the database */
  embeddedProject?: string;
  /** the database as the log names it */
  description: string;
}

/**
 * The GraphQL error for a database that cannot be reached, with a code a client can act on:
 * `EMBEDDED_NODE_NOT_RUNNING` when the embedded database's node is stopped (it serves the database
 * only while it runs), else `DATABASE_UNAVAILABLE`.
 */
export function databaseUnavailableError(place: DatabasePlace): GraphQLError {
  if (place.embeddedProject !== undefined) {
    return new GraphQLError(
      `idx-node is not running for ${place.embeddedProject}: idx-query reads the project's embedded database through the node, which serves it only while it runs; start idx-node -f ${place.embeddedProject} again`,
      { extensions: { code: 'EMBEDDED_NODE_NOT_RUNNING' } },
    );
  }
  return new GraphQLError(`the database (${place.description}) cannot be reached; is it running? The idx-query log has the cause`, {
    extensions: { code: 'DATABASE_UNAVAILABLE' },
  });
}
