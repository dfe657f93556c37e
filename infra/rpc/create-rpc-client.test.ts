import t from 'tap';
import { callCount, deadPort, startLocalServer, type JsonRpcRequest } from '../../test/support/local-rpc-server.ts';
import { createRpcClient } from './create-rpc-client.ts';
import { RpcError, RpcUnreachableError } from './rpc-error.ts';

const echo = (body: unknown) => {
  const calls = (Array.isArray(body) ? body : [body]) as JsonRpcRequest[];
  const out = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: `${c.method}:${JSON.stringify(c.params)}` }));
  return { json: Array.isArray(body) ? out : out[0] };
};
const fast = { backoffMs: 1, maxBackoffMs: 5, cooldownMs: 50 };

t.test('N calls go in one HTTP request; results come back in call order', async (t) => {
  const server = await startLocalServer(t, (body) => {
    // answer in reverse: the client must match by id, not position
    const reply = echo(body);
    return { json: Array.isArray(reply.json) ? [...reply.json].reverse() : reply.json };
  });
  const client = createRpcClient({ endpoints: [{ url: server.url, headers: { authorization: 'Bearer k' } }] });
  const calls = Array.from({ length: 50 }, (_, i) => ({ method: 'eth_getBlockByNumber', params: [`0x${i.toString(16)}`, false] }));
  const results = await client.batch(calls);
  t.equal(server.bodies.length, 1, 'one HTTP request');
  t.equal(callCount(server.bodies[0]), 50);
  t.same(
    results,
    calls.map((c) => `eth_getBlockByNumber:${JSON.stringify(c.params)}`),
  );
  t.equal(server.headers[0]!.authorization, 'Bearer k', 'endpoint headers are sent');
  t.match((server.bodies[0] as JsonRpcRequest[])[0], { jsonrpc: '2.0', method: 'eth_getBlockByNumber' });

  t.equal(await client.request('eth_chainId'), 'eth_chainId:[]');
  t.notOk(Array.isArray(server.bodies[1]), 'a lone call is sent as a plain object');
});

t.test('ids echoed as strings still match', async (t) => {
  const server = await startLocalServer(t, (body) => ({
    json: (body as JsonRpcRequest[]).map((c) => ({ jsonrpc: '2.0', id: String(c.id), result: c.method })),
  }));
  const client = createRpcClient({ endpoints: [{ url: server.url }], retries: 0 });
  t.same(await client.batch([{ method: 'a' }, { method: 'b' }]), ['a', 'b']);
});

t.test('batches are split by maxBatchSize', async (t) => {
  const server = await startLocalServer(t, echo);
  const client = createRpcClient({ endpoints: [{ url: server.url }], maxBatchSize: 10, concurrency: 2 });
  const results = await client.batch(Array.from({ length: 25 }, (_, i) => ({ method: 'm', params: [i] })));
  t.same(server.bodies.map(callCount).sort(), [10, 10, 5]);
  t.same(
    results,
    Array.from({ length: 25 }, (_, i) => `m:[${i}]`),
  );
});

t.test('per-call errors become RpcError with the JSON-RPC code and data', async (t) => {
  const server = await startLocalServer(t, (body) => {
    const calls = body as JsonRpcRequest[];
    return {
      json: calls.map((c) =>
        c.method === 'eth_call'
          ? { jsonrpc: '2.0', id: c.id, error: { code: 3, message: 'execution reverted: nope', data: '0x08c379a0' } }
          : { jsonrpc: '2.0', id: c.id, result: '0x1' },
      ),
    };
  });
  const client = createRpcClient({ endpoints: [{ url: server.url }] });
  const settled = await client.batchSettled([{ method: 'eth_blockNumber' }, { method: 'eth_call', params: [{}, 'latest'] }]);
  t.same(settled[0], { ok: true, value: '0x1', endpoint: server.url }, 'the answer names who gave it');
  t.equal(settled[1]!.ok, false);
  const err = (settled[1] as { error: RpcError }).error;
  t.type(err, RpcError);
  t.match(err, { code: 'RPC_ERROR', rpcCode: 3, data: '0x08c379a0', method: 'eth_call', retryable: false });
  t.equal(err.message, `eth_call failed with JSON-RPC error 3: execution reverted: nope (from ${server.url})`);
  await t.rejects(client.batch([{ method: 'eth_blockNumber' }, { method: 'eth_call' }]), { code: 'RPC_ERROR', rpcCode: 3 });
  t.equal(server.bodies.length, 2, 'a call error is an answer: not retried');
});

t.test('retries HTTP 5xx, 429 and rate-limit errors with backoff', async (t) => {
  let n = 0;
  const server = await startLocalServer(t, (body) => {
    n++;
    if (n === 1) return { status: 503, text: 'upstream busy' };
    if (n === 2) return { status: 429, text: 'slow down' };
    const calls = body as JsonRpcRequest[];
    if (n === 3) {
      // one call rate limited, the other answered: only the first is sent again
      return {
        json: [
          { jsonrpc: '2.0', id: calls[0]!.id, error: { code: -32005, message: 'daily request count exceeded, request rate limited' } },
          { jsonrpc: '2.0', id: calls[1]!.id, result: 'b' },
        ],
      };
    }
    return echo(body);
  });
  const client = createRpcClient({ endpoints: [{ url: server.url }], retries: 4, ...fast });
  const results = await client.batch([{ method: 'a' }, { method: 'b' }]);
  t.same(results, ['a:[]', 'b']);
  t.equal(server.bodies.length, 4);
  t.equal(callCount(server.bodies[3]), 1, 'only the rate-limited call was retried');
});

t.test('a Retry-After is honoured (up to maxBackoffMs)', async (t) => {
  let n = 0;
  const server = await startLocalServer(t, (body) => (n++ === 0 ? { status: 429, headers: { 'retry-after': '1' }, text: 'Too Many Requests' } : echo(body)));
  const client = createRpcClient({ endpoints: [{ url: server.url }], backoffMs: 1, maxBackoffMs: 5_000 });
  const started = Date.now();
  t.equal(await client.request('eth_chainId'), 'eth_chainId:[]');
  t.ok(Date.now() - started >= 950, `waited ${Date.now() - started} ms`);
});

t.test('with retries: 0 the client does not wait: it fails over once and hands the Retry-After to its caller', async (t) => {
  const limited = await startLocalServer(t, () => ({ status: 429, headers: { 'retry-after': '7' }, text: 'Too Many Requests' }));
  const down = await startLocalServer(t, () => ({ status: 503, text: 'down' }));
  const client = createRpcClient({ endpoints: [{ url: limited.url }, { url: down.url }], retries: 0 });
  const started = Date.now();
  const err = (await client.request('eth_blockNumber').catch((e: unknown) => e)) as RpcUnreachableError;
  t.ok(Date.now() - started < 1000, 'no wait in the client');
  t.equal(err.code, 'RPC_UNREACHABLE');
  t.equal(err.retryAfterMs, 7000);
  t.equal(limited.bodies.length + down.bodies.length, 2, 'each endpoint asked once');
});

t.test('a lagging endpoint behind a load balancer: the call goes to another', async (t) => {
  const behind = await startLocalServer(t, (body) => ({
    json: { jsonrpc: '2.0', id: (body as JsonRpcRequest).id, error: { code: -32000, message: 'header not found' } },
  }));
  const synced = await startLocalServer(t, echo);
  const client = createRpcClient({ endpoints: [{ url: behind.url }, { url: synced.url }], retries: 0 });
  t.equal(await client.request('eth_call', [{}, '0x10']), 'eth_call:[{},"0x10"]');
  const alone = createRpcClient({ endpoints: [{ url: behind.url }], retries: 1, ...fast });
  const err = (await alone.request('eth_call').catch((e: unknown) => e)) as RpcUnreachableError;
  t.match(err.failures, [{ error: /^refused for now: eth_call failed with JSON-RPC error -32000: header not found/ }]);
});

t.test('timeouts are retried, then reported', async (t) => {
  let n = 0;
  const server = await startLocalServer(t, (body) => (n++ === 0 ? { ...echo(body), delayMs: 400 } : echo(body)));
  const client = createRpcClient({ endpoints: [{ url: server.url }], timeoutMs: 100, ...fast });
  t.equal(await client.request('eth_chainId'), 'eth_chainId:[]');

  const slow = await startLocalServer(t, (body) => ({ ...echo(body), delayMs: 300 }));
  const stuck = createRpcClient({ endpoints: [{ url: slow.url }], timeoutMs: 50, retries: 1, ...fast });
  const err = await stuck.request('eth_chainId').catch((e: unknown) => e);
  t.type(err, RpcUnreachableError);
  t.match((err as RpcUnreachableError).failures, [{ endpoint: slow.url, error: 'timed out after 50 ms' }]);
});

t.test('fails over from a dead endpoint and spreads load over live ones', async (t) => {
  const dead = `http://127.0.0.1:${await deadPort()}`;
  const a = await startLocalServer(t, echo);
  const b = await startLocalServer(t, echo);
  const client = createRpcClient({ endpoints: [{ url: dead }, { url: a.url }, { url: b.url }], retries: 0, cooldownMs: 60_000 });
  for (let i = 0; i < 10; i++) t.equal(await client.request('eth_blockNumber'), 'eth_blockNumber:[]');
  t.equal(a.bodies.length + b.bodies.length, 10, 'every call answered by a live endpoint');
  t.ok(a.bodies.length >= 4 && b.bodies.length >= 4, `round-robin over live endpoints (${a.bodies.length}/${b.bodies.length})`);
  t.same(client.endpoints, [dead, a.url, b.url]);
});

t.test('an endpoint whose answer proved wrong is avoided while another answers', async (t) => {
  const a = await startLocalServer(t, echo);
  const b = await startLocalServer(t, echo);
  const client = createRpcClient({ endpoints: [{ url: a.url }, { url: b.url }], retries: 0, cooldownMs: 60_000 });
  client.distrust(a.url);
  for (let i = 0; i < 4; i++) await client.request('eth_blockNumber');
  t.same([a.bodies.length, b.bodies.length], [0, 4], 'every call went to the other endpoint');
  const alone = createRpcClient({ endpoints: [{ url: a.url }], retries: 0, cooldownMs: 60_000 });
  alone.distrust(a.url);
  t.equal(await alone.request('eth_blockNumber'), 'eth_blockNumber:[]', 'a lone endpoint is still asked');
});

t.test('when every endpoint fails, the error names each one and what to check', async (t) => {
  const deadUrl = `http://127.0.0.1:${await deadPort()}`;
  const broken = await startLocalServer(t, () => ({ status: 503, text: '<html>Service Unavailable</html>' }));
  const client = createRpcClient({ endpoints: [{ url: deadUrl }, { url: broken.url }], retries: 2, ...fast });
  const err = (await client.batch([{ method: 'eth_getLogs' }, { method: 'eth_getLogs' }]).catch((e: unknown) => e)) as RpcUnreachableError;
  t.type(err, RpcUnreachableError);
  t.equal(err.code, 'RPC_UNREACHABLE');
  t.equal(err.retryable, true);
  t.equal(broken.bodies.length, 3, 'first try and two retries');
  const port = new URL(deadUrl).port;
  t.equal(
    err.message,
    'no RPC endpoint answered a batch of 2 calls (eth_getLogs) (6 attempts):\n' +
      `  - ${deadUrl}: connect ECONNREFUSED 127.0.0.1:${port}\n` +
      `  - ${broken.url}: HTTP 503 Service Unavailable: <html>Service Unavailable</html>\n` +
      'Check that each endpoint URL (and any API key in it) is right and reachable from this machine, that the node behind it is running and synced, and that the provider is not rate limiting you; more --network-endpoint values spread the load.',
  );
});

t.test('HTTP 401/404 are not waited on; API keys are masked in messages', async (t) => {
  const server = await startLocalServer(t, () => ({ status: 401, json: { error: 'invalid project id' } }));
  const url = `${server.url}/v3/9aa3d95b3bc440fa88ea12eaa4456161?apikey=secret`;
  const client = createRpcClient({ endpoints: [{ url }], retries: 5, backoffMs: 10_000 });
  const err = (await client.request('eth_chainId').catch((e: unknown) => e)) as RpcUnreachableError;
  t.equal(server.bodies.length, 1, 'no retry of a permanent failure');
  t.match(err.message, `- ${server.url}/v3/***?apikey=***: HTTP 401 Unauthorized: {"error":"invalid project id"}`);
  t.notMatch(err.message, /9aa3d95b3bc440fa88ea12eaa4456161|secret/);
});

t.test('bad answers: not JSON, a whole-batch error, missing responses', async (t) => {
  let n = 0;
  const server = await startLocalServer(t, (body) => {
    n++;
    if (n === 1) return { text: 'Bad Gateway' };
    if (n === 2) return { json: [] };
    if (n === 3) return { json: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } } };
    return echo(body);
  });
  const client = createRpcClient({ endpoints: [{ url: server.url }], retries: 3, ...fast });
  const settled = await client.batchSettled([{ method: 'a' }, { method: 'b' }]);
  t.equal(n, 3, 'retried after non-JSON and empty answers; the batch error is an answer');
  t.match(settled, [
    { ok: false, error: { rpcCode: -32600, message: /invalid request/ } },
    { ok: false, error: { rpcCode: -32600 } },
  ]);
});

t.test('an endpoint that limits batch sizes gets smaller batches from then on', async (t) => {
  const server = await startLocalServer(t, (body) => {
    if (callCount(body) > 8)
      return callCount(body) > 20
        ? { status: 413, text: 'Payload Too Large' }
        : { json: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch limit 8 exceeded' } } };
    return echo(body);
  });
  const client = createRpcClient({ endpoints: [{ url: server.url }], maxBatchSize: 100, concurrency: 1 });
  const calls = Array.from({ length: 30 }, (_, i) => ({ method: 'm', params: [i] }));
  t.same(
    await client.batch(calls),
    calls.map((_, i) => `m:[${i}]`),
  );
  const first = server.bodies.length;
  t.same(
    await client.batch(calls),
    calls.map((_, i) => `m:[${i}]`),
  );
  t.ok(
    server.bodies.slice(first).every((b) => callCount(b) <= 8),
    'the learned size is kept',
  );
  t.equal(server.bodies.length - first, 4, '30 calls in batches of at most 8');
});

t.test('configuration errors', async (t) => {
  t.throws(() => createRpcClient({ endpoints: [] }), { code: 'RPC_NO_ENDPOINTS' });
  t.throws(() => createRpcClient({ endpoints: [{ url: 'wss://mainnet.example' }] }), { code: 'RPC_BAD_ENDPOINT', message: /not an http\(s\) URL/ });
});

t.test("a URL's user and password go as HTTP basic auth, URL-decoded; the request URL has none", async (t) => {
  const server = await startLocalServer(t, echo);
  const withCredentials = server.url.replace('http://', 'http://indexer%40team:p%3Ass%20w@');
  const client = createRpcClient({
    endpoints: [{ url: `${withCredentials}/v3/9aa3d95b3bc440fa88ea12eaa4456161?apikey=k1`, headers: { 'x-api-key': 'h-secret' } }],
  });
  t.equal(await client.request('eth_chainId'), 'eth_chainId:[]');
  t.equal(server.headers[0]!.authorization, `Basic ${Buffer.from('indexer@team:p:ss w').toString('base64')}`);
  t.equal(server.headers[0]!['x-api-key'], 'h-secret', "the endpoint's headers go too");
  t.equal(server.paths[0], '/v3/9aa3d95b3bc440fa88ea12eaa4456161?apikey=k1', 'path and query as given');
  t.same(client.endpoints, [`${server.url.replace('http://', 'http://***@')}/v3/***?apikey=***`], 'named redacted');

  const own = createRpcClient({ endpoints: [{ url: `${withCredentials}/`, headers: { Authorization: 'Bearer t0ken' } }] });
  await own.request('eth_chainId');
  t.equal(server.headers[1]!.authorization, 'Bearer t0ken', 'an Authorization header of its own wins over the userinfo');
});

t.test('failures name the endpoint redacted, whatever fetch or the endpoint quotes', async (t) => {
  const KEY = '9aa3d95b3bc440fa88ea12eaa4456161';
  const secrets = ['hunter2', KEY, 'k1-s3cret', 'h-s3cret-value', Buffer.from('user:hunter2').toString('base64')];
  const path = `/v3/${KEY}?apikey=k1-s3cret`;
  // 401 echoing what it got, as some providers do; a proxy's HTML page quoting the key; a JSON-RPC error naming it
  const unauthorized = await startLocalServer(t, () => ({ status: 401, text: `invalid key ${KEY} (apikey k1-s3cret) for ${path}` }));
  const html = await startLocalServer(t, () => ({ text: `<html>no project ${KEY}</html>` }));
  const rpcError = await startLocalServer(t, (body) => ({
    json: { jsonrpc: '2.0', id: (body as JsonRpcRequest).id, error: { code: -32000, message: `project ${KEY} is over its limit` } },
  }));
  const refused = `http://127.0.0.1:${await deadPort()}`;
  const headers = { 'x-api-key': 'h-s3cret-value' };
  const endpoint = (base: string) => ({ url: `${base.replace('http://', 'http://user:hunter2@')}${path}`, headers });
  const client = createRpcClient({ endpoints: [endpoint(refused), endpoint(unauthorized.url), endpoint(html.url)], retries: 1, ...fast });
  const err = await client.request('eth_chainId').catch((e: unknown) => e);
  t.ok(err instanceof RpcUnreachableError);
  const text = `${(err as Error).message}\n${JSON.stringify(err)}\n${(err as Error).stack}`;
  for (const s of secrets) t.notOk(text.includes(s), `the error holds no ${s}`);
  t.match((err as Error).message, /127\.0\.0\.1:\d+\/v3\/\*\*\*\?apikey=\*\*\*: .*ECONNREFUSED/, 'refused, named redacted');
  t.match((err as Error).message, /HTTP 401 Unauthorized: invalid key \*\*\* \(apikey \*\*\*\)/, "the endpoint's answer, keys masked");
  t.match((err as Error).message, /not JSON: <html>no project \*\*\*<\/html>/);

  const answered = createRpcClient({ endpoints: [endpoint(rpcError.url)], retries: 0 });
  const e2 = await answered.request('eth_chainId').catch((e: unknown) => e);
  t.ok(e2 instanceof RpcError);
  t.equal(
    (e2 as Error).message,
    `eth_chainId failed with JSON-RPC error -32000: project *** is over its limit (from ${rpcError.url.replace('http://', 'http://***@')}/v3/***?apikey=***)`,
  );
});

t.test('a bad endpoint is named redacted', async (t) => {
  t.throws(() => createRpcClient({ endpoints: [{ url: 'ftp://user:hunter2@host/9aa3d95b3bc440fa88ea12eaa4456161' }] }), {
    code: 'RPC_BAD_ENDPOINT',
    message: /"ftp:\/\/\*\*\*@host\/\*\*\*"/,
  });
});
