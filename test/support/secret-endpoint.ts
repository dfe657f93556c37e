import type { Test } from 'tap';
import { startLocalServer, type LocalServer } from './local-rpc-server.ts';

/**
 * A provider's endpoint as users get them (issue 27, items 6 and 7): a user and password, a key in
 * the path, an apikey in the query, and a header it wants as well. None of them may be printed.
 */
export const USER = 'indexer@team';
export const PASSWORD = 'pw:Hunter2-s3cret';
export const KEY = 'c0ffee11c0ffee22c0ffee33c0ffee44';
export const APIKEY = 'apikey-5ecret-value';
export const HEADER = 'hdr-5ecret-0123';
export const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
/** every form a secret could be printed in */
export const SECRETS = [USER, encodeURIComponent(USER), PASSWORD, encodeURIComponent(PASSWORD), KEY, APIKEY, HEADER, BASIC];
export const PATH = `/v3/${KEY}?apikey=${APIKEY}`;
/** `base` (http://host:port) as the provider's URL: user and password, key in the path, apikey in the query */
export const withSecrets = (base: string, scheme = 'http') =>
  `${base.replace(/^http:\/\//, `${scheme}://${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}@`)}${PATH}`;

export function noSecrets(t: Test, text: string, what: string): void {
  const found = SECRETS.filter((s) => text.includes(s));
  t.same(found, [], `${what} shows no secret`);
}

/**
 * The provider: answers only requests with basic auth for USER:PASSWORD, the x-api-key header and
 * the key and apikey in the URL, passed on to `upstream`; anything else gets a 401 that quotes the
 * key, as some providers' errors do.
 */
export async function provider(t: Test, upstream: string): Promise<LocalServer & { refused: () => number }> {
  let refused = 0;
  const server: LocalServer = await startLocalServer(t, async (body, i) => {
    const h = server.headers[i]!;
    if (h.authorization !== `Basic ${BASIC}` || h['x-api-key'] !== HEADER || server.paths[i] !== PATH) {
      refused++;
      return { status: 401, text: `invalid credentials for project ${KEY}` };
    }
    const res = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { json: await res.json() };
  });
  return Object.assign(server, { refused: () => refused });
}
