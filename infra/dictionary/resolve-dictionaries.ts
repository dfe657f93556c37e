import { endpointTarget } from '../rpc/endpoint-target.ts';
import { DictionaryError, describeCause } from './graphql-dictionary.ts';

/**
 * `--dictionary-resolver`: asks a resolver which dictionaries serve a chain. idx's resolver protocol
 * (docs/DECISIONS.md): `GET <resolver>?chainId=<id>&genesisHash=<hash>` answers a JSON array of
 * dictionary URLs, best first; an empty array means none.
 */
export async function resolveDictionaries(resolver: string, chain: { chainId: string; genesisHash: string }, timeoutSeconds: number): Promise<string[]> {
  // a user and password in the URL go as basic auth; messages name the resolver by its redacted URL
  const target = endpointTarget(resolver);
  const url = new URL(target.url);
  url.searchParams.set('chainId', chain.chainId);
  url.searchParams.set('genesisHash', chain.genesisHash);
  const name = target.label;
  let body: unknown;
  try {
    const res = await fetch(url, { headers: { accept: 'application/json', ...target.headers }, signal: AbortSignal.timeout(timeoutSeconds * 1000) });
    if (!res.ok) throw new DictionaryError(`dictionary resolver ${name} answered HTTP ${res.status}`);
    body = await res.json();
  } catch (err) {
    if (err instanceof DictionaryError) throw err;
    throw new DictionaryError(`dictionary resolver ${name} failed: ${target.redact(describeCause(err))}`);
  }
  if (!Array.isArray(body) || body.some((u) => typeof u !== 'string' || !URL.canParse(u))) {
    throw new DictionaryError(`dictionary resolver ${name} must answer a JSON array of dictionary URLs; it answered ${JSON.stringify(body).slice(0, 200)}`);
  }
  return body as string[];
}
