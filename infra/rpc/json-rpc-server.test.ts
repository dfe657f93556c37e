import { createServer } from 'node:http';
import t from 'tap';
import { createJsonRpcHandler, invalidParams, JsonRpcServerError, RawJson } from './json-rpc-server.ts';

const calls: string[] = [];
const internal: string[] = [];
const server = createServer(
  createJsonRpcHandler({
    maxBatchSize: 5,
    maxBodyBytes: 10_000,
    onInternalError: (err, method) => internal.push(`${method}: ${(err as Error).message}`),
    methods: {
      echo: (params) => {
        calls.push(`echo ${JSON.stringify(params)}`);
        return params;
      },
      raw: () => new RawJson('{"b":1,"a":2}'),
      nothing: () => undefined,
      slowSum: async (params) => {
        if (!params.every((p) => typeof p === 'number')) throw invalidParams('slowSum takes numbers');
        await new Promise((r) => setTimeout(r, 5));
        return (params as number[]).reduce((a, b) => a + b, 0);
      },
      custom: () => {
        throw new JsonRpcServerError(4444, 'pruned history unavailable', { earliest: 5 });
      },
      broken: () => {
        throw new Error('database is gone');
      },
    },
  }),
);
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise((r) => server.close(r)));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

async function post(body: string, method = 'POST'): Promise<{ status: number; text: string; json: unknown }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' && { body }) });
  const text = await res.text();
  return { status: res.status, text, json: text === '' ? undefined : JSON.parse(text) };
}

t.test('a call is answered with its id and result; raw JSON results are spliced in as they are', async (t) => {
  t.same((await post('{"jsonrpc":"2.0","id":7,"method":"echo","params":[1,"a"]}')).json, { jsonrpc: '2.0', id: 7, result: [1, 'a'] });
  t.same((await post('{"jsonrpc":"2.0","id":"x","method":"echo"}')).json, { jsonrpc: '2.0', id: 'x', result: [] }, 'params may be left out');
  t.equal((await post('{"jsonrpc":"2.0","id":1,"method":"raw","params":[]}')).text, '{"jsonrpc":"2.0","id":1,"result":{"b":1,"a":2}}');
  t.same((await post('{"jsonrpc":"2.0","id":null,"method":"nothing","params":[]}')).json, { jsonrpc: '2.0', id: null, result: null });
});

t.test('errors: -32700, -32600, -32601, -32602, -32603 and method-defined codes', async (t) => {
  const parse = await post('{"jsonrpc":"2.0","method":"echo",');
  t.equal(parse.status, 200);
  t.match(parse.json, { jsonrpc: '2.0', id: null, error: { code: -32700 } });
  t.match((await post('[{"jsonrpc":"2.0","id":1,"method":"echo"},')).json, { id: null, error: { code: -32700 } }, 'a broken batch is one parse error');
  t.match((await post('{"jsonrpc":"1.0","id":3,"method":"echo"}')).json, { id: 3, error: { code: -32600 } });
  t.match((await post('{"jsonrpc":"2.0","id":3,"method":5}')).json, { id: 3, error: { code: -32600 } });
  t.match((await post('{"jsonrpc":"2.0","id":3,"method":"echo","params":"x"}')).json, { id: 3, error: { code: -32600 } });
  t.match((await post('{"jsonrpc":"2.0","id":{},"method":"echo"}')).json, { id: null, error: { code: -32600 } });
  t.match((await post('{"foo":"boo"}')).json, { id: null, error: { code: -32600 } }, 'an invalid object without id is still answered');
  t.match((await post('"hello"')).json, { id: null, error: { code: -32600 } });
  t.match((await post('[]')).json, { id: null, error: { code: -32600, message: /empty batch/ } });
  t.match((await post('{"jsonrpc":"2.0","id":4,"method":"nope"}')).json, { id: 4, error: { code: -32601, message: /nope/ } });
  t.match((await post('{"jsonrpc":"2.0","id":5,"method":"slowSum","params":[1,"2"]}')).json, {
    id: 5,
    error: { code: -32602, message: 'slowSum takes numbers' },
  });
  t.match((await post('{"jsonrpc":"2.0","id":5,"method":"echo","params":{"a":1}}')).json, { id: 5, error: { code: -32602, message: /array/ } });
  t.same((await post('{"jsonrpc":"2.0","id":6,"method":"custom","params":[]}')).json, {
    jsonrpc: '2.0',
    id: 6,
    error: { code: 4444, message: 'pruned history unavailable', data: { earliest: 5 } },
  });
  const broken = await post('{"jsonrpc":"2.0","id":8,"method":"broken","params":[]}');
  t.match(broken.json, { id: 8, error: { code: -32603, message: /database is gone/ } });
  t.same(internal, ['broken: database is gone'], 'internal errors are reported to the host');
});

t.test('batches: answers in order, invalid members answered one by one, notifications left out', async (t) => {
  calls.length = 0;
  const res = await post(
    JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'slowSum', params: [1, 2] },
      { jsonrpc: '2.0', method: 'echo', params: ['note'] },
      1,
      { jsonrpc: '2.0', id: 2, method: 'nope' },
      { jsonrpc: '2.0', id: 3, method: 'echo', params: [3] },
    ]),
  );
  t.same(res.json, [
    { jsonrpc: '2.0', id: 1, result: 3 },
    { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: expected a JSON-RPC request object' } },
    { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'the method nope does not exist/is not available' } },
    { jsonrpc: '2.0', id: 3, result: [3] },
  ]);
  t.ok(calls.includes('echo ["note"]'), 'the notification ran');
  t.match((await post('[1,2,3,4,5,6]')).json, { id: null, error: { code: -32600, message: /batch too large: 6 calls, at most 5/ } });
});

t.test('notifications get no answer: a lone one or a batch of them is HTTP 204 without a body', async (t) => {
  calls.length = 0;
  const one = await post('{"jsonrpc":"2.0","method":"echo","params":["a"]}');
  t.equal(one.status, 204);
  t.equal(one.text, '');
  const batch = await post('[{"jsonrpc":"2.0","method":"echo","params":["b"]},{"jsonrpc":"2.0","method":"nope"}]');
  t.equal(batch.status, 204);
  t.equal(batch.text, '');
  t.same(calls, ['echo ["a"]', 'echo ["b"]']);
});

t.test('HTTP: only POST, and a body size limit', async (t) => {
  const get = await post('', 'GET');
  t.equal(get.status, 405);
  t.match(get.json, { error: { code: -32600, message: /POST/ } });
  const big = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: ['x'.repeat(20_000)] }));
  t.equal(big.status, 413);
  t.match(big.json, { error: { code: -32600, message: /larger than 10000 bytes/ } });
});

t.test('answers are bounded: a call over the size limit, and a batch whose answers reach it, get -32003; the rest of the batch is not run', async (t) => {
  let runs = 0;
  const limited = createServer(
    createJsonRpcHandler({
      maxResponseBytes: 1000,
      batchConcurrency: 2,
      methods: {
        blob: async (params) => {
          runs++;
          await new Promise((r) => setTimeout(r, 10));
          return 'x'.repeat(params[0] as number);
        },
      },
    }),
  );
  await new Promise<void>((r) => limited.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => limited.close(r)));
  const at = `http://127.0.0.1:${(limited.address() as { port: number }).port}`;
  const send = async (body: unknown) => (await fetch(at, { method: 'POST', body: JSON.stringify(body) })).json() as Promise<any>;

  t.match(await send({ jsonrpc: '2.0', id: 1, method: 'blob', params: [2000] }), {
    id: 1,
    error: { code: -32003, message: /answer of blob is 2002 bytes, more than this server's limit of 1000/ },
  });
  t.same(await send({ jsonrpc: '2.0', id: 2, method: 'blob', params: [10] }), { jsonrpc: '2.0', id: 2, result: 'x'.repeat(10) }, 'small answers pass');

  runs = 0;
  const calls = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'blob', params: [300] }));
  const started = performance.now();
  const [batch, meanwhile] = await Promise.all([
    send(calls),
    new Promise((r) => setTimeout(r, 5)).then(() => send({ jsonrpc: '2.0', id: 'm', method: 'blob', params: [1] })),
  ]);
  t.equal(batch.length, 100, 'every call is answered');
  t.same(
    batch.slice(0, 2).map((a: any) => a.result?.length),
    [300, 300],
    'the answers that fit come first',
  );
  t.ok(
    batch.slice(3).every((a: any) => a.error?.code === -32003 && /answers of this batch reached this server's limit of 1000 bytes/.test(a.error.message)),
    'the rest are -32003',
  );
  t.same(
    batch.map((a: any) => a.id),
    calls.map((c) => c.id),
    'ids in order',
  );
  t.ok(runs <= 6, `the calls after the limit are not run (${runs} of 100 ran)`);
  t.equal(meanwhile.result, 'x', 'another client is answered meanwhile');
  t.ok(performance.now() - started < 1000);
});

t.test('authorize: a refused request is HTTP 401 with -32001 and the reason, and runs nothing', async (t) => {
  let runs = 0;
  const guarded = createServer(
    createJsonRpcHandler({
      authorize: (req) => (req.headers.authorization === 'Bearer ok' ? undefined : 'missing token'),
      methods: { touch: () => ++runs },
    }),
  );
  await new Promise<void>((r) => guarded.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise((r) => guarded.close(r)));
  const at = `http://127.0.0.1:${(guarded.address() as { port: number }).port}`;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'touch', params: [] });
  const refused = await fetch(at, { method: 'POST', body });
  t.equal(refused.status, 401);
  t.same(await refused.json(), { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized: missing token' } });
  t.equal(runs, 0);
  const ok = await fetch(at, { method: 'POST', body, headers: { authorization: 'Bearer ok' } });
  t.same(await ok.json(), { jsonrpc: '2.0', id: 1, result: 1 });
});
