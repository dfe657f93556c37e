import { redactUrl } from '../rpc/redact-url.ts';
import { DictionaryError } from './create-dictionary-client.ts';

/**
 * `--dictionary-resolver`: asks a resolver which dictionaries serve a chain. idx's resolver protocol
 * (docs/DECISIONS.md): `GET <resolver>?chainId=<id>&genesisHash=<hash>` answers a JSON array of
 * dictionary URLs, best first; an empty array means none.
 */
export async function resolveDictionaries(resolver: string, chain: { chainId: string; genesisHash: string }, timeoutSeconds: number): Promise<string[]> {
  const url = new URL(resolver);
  url.searchParams.set('chainId', chain.chainId);
  url.searchParams.set('genesisHash', chain.genesisHash);
  const name = redactUrl(resolver);
  let body: unknown;
  try {
    const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutSeconds * 1000) });
    if (!res.ok) throw new DictionaryError(`dictionary resolver ${name} answered HTTP ${res.status}`);
    body = await res.json();
  } catch (err) {
    if (err instanceof DictionaryError) throw err;
    throw new DictionaryError(`dictionary resolver ${name} failed: ${(err as Error).message}`, { cause: err });
  }
  if (!Array.isArray(body) || body.some((u) => typeof u !== 'string' || !URL.canParse(u))) {
    throw new DictionaryError(`dictionary resolver ${name} must answer a JSON array of dictionary URLs; it answered ${JSON.stringify(body).slice(0, 200)}`);
  }
  return body as string[];
}
