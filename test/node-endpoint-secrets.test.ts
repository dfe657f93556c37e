import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { servedPort } from './support/node-ports.ts';
import { spawnWatchedNode } from './support/watched-node.ts';
import { deadPort, startLocalServer } from './support/local-rpc-server.ts';
import { APIKEY, BASIC, HEADER, KEY, PATH, noSecrets, provider, withSecrets } from './support/secret-endpoint.ts';

// Chain endpoints with credentials (issue 27, items 6 and 7), through idx-node as a user runs it
// (the Substrate path: node-substrate-credentials.test.ts):
// a provider's URL carries a user and password, a key in its path and an apikey in its query, and
// the provider wants a header too. The node must send the userinfo as basic auth and the header on
// every request, and no log line (any level, either format), /meta or /metrics may show any of them.

/** idx-node on `dir` until /meta reports `until` (then /meta and /metrics are read, and it is stopped), or until it exits. */
async function runNode(dir: string, args: readonly string[], until?: number) {
  let seen: { meta: string; metrics: string } | undefined;
  let reading: Promise<void> | undefined;
  const read = async (port: number) => {
    const [meta, metrics] = await Promise.all(['meta', 'metrics'].map((p) => fetch(`http://127.0.0.1:${port}/${p}`).then((r) => r.text())));
    seen = { meta: meta!, metrics: metrics! };
  };
  const node = spawnWatchedNode(
    dir,
    {},
    args,
    (height) => {
      if (until === undefined || height < until || reading !== undefined) return;
      reading = read(servedPort(node.output())!).finally(() => node.child.kill('SIGTERM'));
    },
    50,
  );
  // a node that fails: /meta and /metrics while it retries (tried until they answer: a loaded machine is slow to serve)
  let exited = false;
  if (until === undefined) {
    reading = (async () => {
      while (!exited && seen === undefined) {
        const port = servedPort(node.output());
        if (port !== undefined) await read(port).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  }
  // under the file's timeout, with room for a loaded machine's slow start
  const deadline = setTimeout(() => node.child.kill('SIGKILL'), 240_000);
  const { code } = await node.exited;
  exited = true;
  clearTimeout(deadline);
  await reading;
  return { code, output: node.output(), ...seen };
}

t.test('EVM', async (t) => {
  const { anvil, workload, built } = await setupErc20Chain(t, 3);

  t.test('credentials in the URL go as basic auth, the config flag’s header with them; nothing secret is printed or served', async (t) => {
    const dir = await copyProject(t, built);
    const guard = await provider(t, anvil.url);
    const r = await runNode(
      dir,
      [
        '--network-endpoint',
        withSecrets(guard.url),
        '--network-endpoint-config',
        JSON.stringify({ headers: { 'x-api-key': HEADER } }),
        '--output-fmt',
        'json',
        '--log-level',
        'trace',
      ],
      workload.toBlock,
    );
    t.equal(r.code, 0, r.output);
    t.ok(guard.bodies.length > 0, 'the provider was asked');
    t.equal(guard.refused(), 0, 'every request carried the basic auth, the header, the key and the apikey');
    t.ok(r.meta?.includes('"lastProcessedHeight"'), '/meta was read');
    t.ok(r.metrics?.includes('# TYPE'), '/metrics was read');
    noSecrets(t, r.output, 'the log');
    noSecrets(t, r.meta ?? '', '/meta');
    noSecrets(t, r.metrics ?? '', '/metrics');
  });

  t.test('failing endpoints (refused, 401, not JSON) are named redacted in every format', async (t) => {
    const unauthorized = await startLocalServer(t, () => ({ status: 401, text: `invalid key ${KEY} (apikey ${APIKEY})` }));
    const html = await startLocalServer(t, () => ({ text: `<html><body>project ${KEY} not found at ${PATH}</body></html>` }));
    const refused = `http://127.0.0.1:${await deadPort()}`;
    const endpoints = [refused, unauthorized.url, html.url].flatMap((base) => ['--network-endpoint', withSecrets(base)]);
    await Promise.all(
      (['json', 'colored'] as const).map(async (format) => {
        const dir = await copyProject(t, built);
        const r = await runNode(dir, [...endpoints, '--output-fmt', format, '--log-level', 'trace']);
        t.equal(r.code, 1, `${format}: the node stops`);
        t.match(r.output, /cannot reach the chain/);
        t.match(r.output, /127\.0\.0\.1:\d+\/v3\/\*\*\*\?apikey=\*\*\*/, `${format}: the endpoints are named, host and port kept`);
        t.match(r.output, /HTTP 401/);
        t.match(r.output, /not JSON/);
        t.ok(r.meta !== undefined && r.metrics !== undefined, `${format}: /meta and /metrics were read while it retried`);
        noSecrets(t, r.output, `${format}: the log`);
        noSecrets(t, `${r.meta}${r.metrics}`, `${format}: /meta and /metrics`);
      }),
    );
    t.ok(unauthorized.headers.length > 0, 'the failing endpoints were asked');
    t.ok(
      unauthorized.headers.every((h) => h.authorization === `Basic ${BASIC}`),
      'with the basic auth',
    );
  });

  t.test("a manifest problem naming an endpoint's URL does not quote its secrets", async (t) => {
    const dir = await copyProject(t, built);
    const yaml = await readFile(join(dir, 'dist', 'project.yaml'), 'utf8');
    const bad = yaml.replace(/endpoint:\n\s+- \S+/, `endpoint:\n    ${JSON.stringify(withSecrets('http://127.0.0.1:8545'))}:\n      batchSize: 0`);
    t.not(bad, yaml);
    // beside project.ts, a project.yaml the node is pointed at; its files resolve from the project folder
    await writeFile(join(dir, 'project.yaml'), bad);
    const r = await runNode(join(dir, 'project.yaml'), []);
    t.equal(r.code, 1);
    t.match(r.output, /\.batchSize(:\d+:\d+)?: expected a positive integer/);
    noSecrets(t, r.output, 'the validation error');
  });
});
