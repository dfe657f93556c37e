import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createLogger } from '../../../infra/logging/create-logger.ts';
import { parseNodeArgs } from './node-options.ts';
import { runNode } from './run-node.ts';
import { exitWhenDone } from '../../../test/support/exit-when-done.ts';
import { nodeOptions } from '../../../test/support/parsed-node-options.ts';

exitWhenDone();

// a folder that surely does not exist: in a fresh temp folder of the test's own
const parent = await mkdtemp(join(tmpdir(), 'idx-run-node-'));
t.teardown(() => rm(parent, { recursive: true, force: true }));
const missing = join(parent, 'missing');

const options = (args: string[]) => {
  const cmd = parseNodeArgs(['-f', missing, ...args], { program: 'idx-node', version: 't', variant: 'base', cores: 2, write: () => {} });
  if (cmd.command !== 'run') throw new Error('expected run');
  return cmd.options;
};
const logger = createLogger({ level: 'silent', format: 'json' });
const run = (args: string[]) => runNode({ options: options(args), logger, version: 't', env: {}, signal: new AbortController().signal });

t.test('a missing project is named', async (t) => {
  await t.rejects(run([]), { code: 'PROJECT_NOT_FOUND', message: `${missing} does not exist` });
});

/** A port nothing listens on: the chain's endpoint never answers. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** A project of one data source of `kind`, built enough to start (its mapping file exists). */
async function projectOf(name: string, kind: string, handler: string, chainId: string): Promise<string> {
  const dir = join(parent, name);
  await mkdir(join(dir, 'dist'), { recursive: true });
  await writeFile(join(dir, 'schema.graphql'), 'type Thing @entity { id: ID! }\n');
  await writeFile(join(dir, 'dist', 'index.js'), 'exports.handle = () => {};\n');
  await writeFile(
    join(dir, 'project.yaml'),
    [
      'specVersion: 1.0.0',
      `name: ${name}`,
      'schema: { file: ./schema.graphql }',
      `network: { chainId: "${chainId}", endpoint: ["http://127.0.0.1:1"] }`,
      'dataSources:',
      `  - kind: ${kind}`,
      '    startBlock: 1',
      `    mapping: { file: ./dist/index.js, handlers: [{ handler: handle, kind: ${handler} }] }`,
      '',
    ].join('\n'),
  );
  return dir;
}

/** `/meta` as the node answers while its chain does not. */
async function metaBeforeTheChain(dir: string, endpoint: string): Promise<Record<string, unknown>> {
  const stop = new AbortController();
  let port: number | undefined;
  const running = runNode({ options: nodeOptions(dir, endpoint), logger, version: 't', env: {}, signal: stop.signal, onListening: (p) => (port = p) });
  let failed: unknown;
  running.catch((err: unknown) => (failed = err));
  try {
    const deadline = Date.now() + 30_000;
    while (port === undefined) {
      if (failed !== undefined) throw failed;
      if (Date.now() > deadline) throw new Error('the node did not serve /meta');
      await new Promise((r) => setTimeout(r, 20));
    }
    return (await fetch(`http://127.0.0.1:${port}/meta`).then((r) => r.json())) as Record<string, unknown>;
  } finally {
    stop.abort();
    await running.catch(() => {});
  }
}

t.test('before the chain answers, /meta gives the spec name only where the family knows it without asking', async (t) => {
  const port = await closedPort();
  const evm = await projectOf('evm', 'ethereum/Runtime', 'ethereum/BlockHandler', '1');
  const evmMeta = await metaBeforeTheChain(evm, `http://127.0.0.1:${port}`);
  t.equal(evmMeta.specName, 'ethereum', 'an EVM chain is `ethereum` from the start');
  t.equal(evmMeta.apiConnected, false);

  const substrate = await projectOf('substrate', 'substrate/Runtime', 'substrate/BlockHandler', `0x${'45'.repeat(32)}`);
  const substrateMeta = await metaBeforeTheChain(substrate, `ws://127.0.0.1:${port}`);
  t.notOk('specName' in substrateMeta, "a Substrate chain's spec name is its runtime's: left out until the chain answers, not `ethereum`");
  t.equal(substrateMeta.apiConnected, false);
});
