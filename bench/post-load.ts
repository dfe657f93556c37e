/** What one load run of autocannon reports, as the benches print it. */
export interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}

/** POSTs `body` (JSON text) to `url` from `connections` connections for `seconds`, with autocannon. */
export async function postLoad(url: string, body: string, connections: number, seconds: number): Promise<LoadResult> {
  // autocannon ships no types: loaded through a name TypeScript does not resolve
  const name = 'autocannon';
  type Autocannon = (o: {
    url: string;
    method: string;
    headers: Record<string, string>;
    body: string;
    connections: number;
    duration: number;
  }) => Promise<LoadResult>;
  const { default: autocannon } = (await import(name)) as { default: Autocannon };
  return autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections, duration: seconds });
}

/** ` (n failed)` when any request failed, else nothing. */
export const failures = (r: LoadResult): string => (r.non2xx + r.errors > 0 ? ` (${r.non2xx + r.errors} failed)` : '');
