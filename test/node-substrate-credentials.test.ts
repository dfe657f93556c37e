import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { startSubstrateChain } from '../devchain/start-substrate-chain.ts';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { copyProject } from './support/project-copies.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { buildSubstrateStarter } from './support/substrate-project.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { HEADER, noSecrets, provider, withSecrets } from './support/secret-endpoint.ts';

// The Substrate path of node-endpoint-secrets.test.ts: a ws:// endpoint (asked over HTTP at the same
// address) with a user and password, a key in its path, an apikey in its query and headers in
// SubQuery's map form of network.endpoint. Every request must carry them; no log line shows them.
exitWhenDone();

const chain = await startSubstrateChain();
t.teardown(() => chain.close());
await chain.newBlocks(3);
const built = await buildSubstrateStarter(t);

t.test("the manifest's { <ws url>: { headers } }: basic auth and headers on every request, nothing secret logged", async (t) => {
  const dir = await copyProject(t, built);
  const guard = await provider(t, chain.httpUrl);
  const manifest = join(dir, 'project.yaml');
  const yaml = await readFile(manifest, 'utf8');
  const patched = yaml.replace(
    /endpoint:\n\s+- ws:\/\/127\.0\.0\.1:8000/,
    `endpoint:\n    ${JSON.stringify(withSecrets(guard.url, 'ws'))}:\n      headers:\n        x-api-key: ${HEADER}`,
  );
  t.not(patched, yaml, 'the manifest names its endpoint');
  await writeFile(manifest, patched);

  const lines: string[] = [];
  await runNode({
    // the endpoint is the manifest's
    options: nodeOptions(dir, undefined, ['--db-schema', 'secrets']),
    logger: createLogger({ level: 'trace', format: 'json', write: (line) => lines.push(line) }),
    version: 'test',
    // the embedded database, in the project's temp folder: this is about the chain's endpoint, not storage
    env: {},
    signal: new AbortController().signal,
    settings: { stopAtHeight: 3 },
  });
  t.ok(guard.bodies.length > 0, 'the provider was asked');
  t.equal(guard.refused(), 0, 'every request carried the basic auth, the header, the key and the apikey');
  t.match(lines.join(''), /stopped after block 3|indexed to 3/, 'the blocks were indexed');
  noSecrets(t, lines.join(''), 'the log (every level)');
});
