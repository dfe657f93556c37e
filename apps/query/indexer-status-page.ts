import { readServiceUrl } from '../../infra/http/service-url-file.ts';

/** How long an answer is reused: the playground page is loaded often, the node's flags rarely change. */
const CACHE_MS = 10_000;
const PROBE_TIMEOUT_MS = 1000;

/**
 * Where the status page of the idx-node indexing this project is (`idx-node --status-page`), for
 * the playground to link to: the node serving the project's embedded database says so in its data
 * folder; otherwise the node at `--indexer` answers `/status` when its page is on. Undefined when
 * neither; answers are kept a few seconds.
 */
export function indexerStatusPage(options: { dataDir: string; indexer?: string }): () => Promise<string | undefined> {
  let cached: { at: number; url: string | undefined } | undefined;
  const look = async (): Promise<string | undefined> => {
    const node = await readServiceUrl(options.dataDir, 'idx-node');
    if (node?.page === true) return `${node.url}/`;
    if (options.indexer === undefined) return undefined;
    const base = options.indexer.replace(/\/+$/, '');
    const res = await fetch(`${base}/status`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).catch(() => undefined);
    await res?.body?.cancel();
    return res?.ok === true ? `${base}/` : undefined;
  };
  return async () => {
    if (cached === undefined || Date.now() - cached.at > CACHE_MS) cached = { at: Date.now(), url: await look() };
    return cached.url;
  };
}
