import type { Client } from 'graphql-ws';

/** A GraphQL result as the server sent it (over HTTP, GqlAnswer adds the status). */
export interface WsAnswer<D = any> {
  data?: D;
  errors?: { message: string; extensions?: { code?: string } & Record<string, unknown>; path?: (string | number)[] }[];
}

/** One operation over graphql-ws: its result, or the errors the server refused it with. */
export function overWs(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<WsAnswer> {
  return new Promise((resolve) => {
    client.subscribe(
      { query, variables },
      {
        next: (r) => resolve(r as WsAnswer),
        error: (e) => resolve({ errors: Array.isArray(e) ? e : [{ message: String((e as Error).message ?? e) }] }),
        complete: () => undefined,
      },
    );
  });
}
