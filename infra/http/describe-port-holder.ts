/** How long to wait for the holder of a busy port to answer: a start must not stall on it. */
const PROBE_TIMEOUT_MS = 800;

/** undefined: no HTTP answer at all; otherwise the body when it is a JSON object of a 2xx answer. */
async function probe(url: string): Promise<{ json?: Record<string, unknown> } | undefined> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    text = await res.text();
  } catch {
    return undefined;
  }
  try {
    const body = JSON.parse(text) as unknown;
    if (res.ok && typeof body === 'object' && body !== null && !Array.isArray(body)) return { json: body as Record<string, unknown> };
  } catch {
    // not JSON: some other web server
  }
  return {};
}

/**
 * Who holds a busy local port, as far as it can be told from outside: another idx-node (its /meta
 * answers, and with --status-page its /status names the project), idx-query (its `_metadata`
 * answers), some other web server, or just "in use". For the warning when `--port` moves to the
 * next free port.
 */
export async function describePortHolder(port: number): Promise<string> {
  const base = `http://127.0.0.1:${port}`;
  const meta = await probe(`${base}/meta`);
  if (meta === undefined) return 'in use';
  if (typeof meta.json?.indexerNodeVersion === 'string') {
    const { json } = meta;
    const status = (await probe(`${base}/status`))?.json;
    const facts = [
      typeof status?.project === 'string' ? `project ${status.project}` : undefined,
      typeof json.chain === 'string' ? `chain ${json.chain}` : undefined,
      typeof json.lastProcessedHeight === 'number' ? `at block ${json.lastProcessedHeight}` : undefined,
    ].filter((f) => f !== undefined);
    return `in use by another idx-node${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`;
  }
  const graphql = (await probe(`${base}/?query=${encodeURIComponent('{ _metadata { queryNodeVersion } }')}`))?.json;
  const data = graphql?.data as { _metadata?: { queryNodeVersion?: unknown } } | undefined;
  if (typeof data?._metadata?.queryNodeVersion === 'string') return 'in use by idx-query';
  return 'in use by another web server';
}
