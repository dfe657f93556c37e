import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { createLogger } from '../../../infra/logging/create-logger.ts';
import { parseNodeArgs } from './node-options.ts';
import { forceClean, reindex } from './history-commands.ts';
import { runNode } from './run-node.ts';
import { exitWhenDone } from '../../../test/support/exit-when-done.ts';

exitWhenDone();

const chain = (chainId: string, endpoint: string) => `
specVersion: 1.0.0
schema: { file: ./schema.graphql }
network: { chainId: "${chainId}", endpoint: ["${endpoint}"] }
dataSources:
  - kind: ethereum/Runtime
    mapping: { file: ./dist/index.js, handlers: [{ kind: ethereum/BlockHandler, handler: handleBlock }] }
`;

/** A multichain folder whose chains' endpoints refuse connections: every check here fails before a chain or database is used. */
async function folder(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'idx-run-multichain-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const all = {
    'subquery-multichain.yaml': 'specVersion: 1.0.0\nquery: { name: "@subql/query", version: "*" }\nprojects: [ethereum.yaml, polygon.yaml]\n',
    'ethereum.yaml': chain('1', 'http://127.0.0.1:1'),
    'polygon.yaml': chain('137', 'http://127.0.0.1:1'),
    'schema.graphql': 'type Block @entity {\n  id: ID!\n}\n',
    'dist/index.js': 'exports.handleBlock = async () => {};\n',
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    await mkdir(resolve(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const parse = (args: string[]) => parseNodeArgs(args, { program: 'idx-node', version: 't', variant: 'base', cores: 2, write: () => {} });
const logger = createLogger({ level: 'silent', format: 'json' });
const run = (args: string[], env: Record<string, string> = { DB_HOST: '127.0.0.1' }) => {
  const cmd = parse([...args, '--port', String(20000 + Math.floor(Math.random() * 20000))]);
  if (cmd.command !== 'run') throw new Error('expected run');
  return runNode({ options: cmd.options, logger, version: 't', env, signal: new AbortController().signal });
};

t.test('--multi-chain without --db-schema: a multichain folder names the schema itself; a single project still needs it', async (t) => {
  const dir = await folder();
  t.equal(parse(['-f', dir, '--multi-chain']).command, 'run');
  t.equal(parse(['-f', join(dir, 'subquery-multichain.yaml'), '--multi-chain']).command, 'run');
  t.throws(() => parse(['-f', join(dir, 'ethereum.yaml'), '--multi-chain']), { message: /--multi-chain needs --db-schema naming the shared schema/ });
});

t.test('a multichain folder is refused with a clear error where it cannot run', async (t) => {
  const dir = await folder();
  await t.rejects(run(['-f', dir]), {
    code: 'MULTI_CHAIN_FLAG_NEEDED',
    message:
      /subquery-multichain\.yaml is a multichain project \(.*ethereum\.yaml, .*polygon\.yaml\): index all its chains into one schema with --multi-chain \(the schema is --db-schema, by default "idx-run-multichain-\w+"\), or give one chain with -f .*ethereum\.yaml/,
  });
  await t.rejects(run(['-f', dir, '--multi-chain'], {}), { code: 'MULTI_CHAIN_NEEDS_POSTGRES' });
  t.notOk(existsSync(join(dir, '.idx-data')), 'no embedded database was opened');
  await t.rejects(run(['-f', dir, '--multi-chain', '--network-endpoint', 'http://127.0.0.1:2']), {
    code: 'MULTICHAIN_FLAG_UNSUPPORTED',
    message:
      /--network-endpoint would apply to every chain of .*subquery-multichain\.yaml; set it in each chain's manifest, or run one idx-node -f <chain manifest> --multi-chain --db-schema=idx-run-multichain-\w+ per chain/,
  });

  const twice = await folder({ 'polygon.yaml': chain('1', 'http://127.0.0.1:1') });
  await t.rejects(run(['-f', twice, '--multi-chain']), { code: 'MULTICHAIN_CHAIN_REPEATED', message: /ethereum\.yaml and polygon\.yaml are both for chain 1/ });

  const invalid = await folder({ 'polygon.yaml': chain('137', 'https://a.example,https://b.example') });
  await t.rejects(run(['-f', invalid, '--multi-chain']), {
    code: 'VALIDATION_FAILED',
    message: /polygon\.yaml is invalid:\n {2}- network\.endpoint\[0\]:\d+:\d+: .*several URLs in one string/,
  });
});

t.test('a chain that fails stops the others, and its error names the chain and its manifest', async (t) => {
  const dir = await folder();
  await t.rejects(run(['-f', dir, '--multi-chain', '--db-schema', 'never_created']), {
    code: 'CHAIN_UNREACHABLE',
    message: /^chain (1|137) \((ethereum|polygon)\.yaml|.*\/(ethereum|polygon)\.yaml\): cannot reach the chain/,
  });
});

t.test('force-clean of a multichain folder needs --multi-chain; reindex needs one chain', async (t) => {
  const dir = await folder();
  const cmd = parse(['force-clean', '-f', dir]);
  if (cmd.command !== 'force-clean') throw new Error('expected force-clean');
  await t.rejects(forceClean({ ...cmd.options, idx: dir }, logger, {}), {
    code: 'MULTI_CHAIN_FLAG_NEEDED',
    message: /: remove all its chains' data with --multi-chain/,
  });
  const re = parse(['reindex', '-f', dir, '--multi-chain', '--targetHeight', '5']);
  if (re.command !== 'reindex') throw new Error('expected reindex');
  await t.rejects(reindex({ ...re.options, idx: dir }, 5, logger, {}), {
    code: 'MULTICHAIN_REINDEX_ONE_CHAIN',
    message:
      /reindex rewinds one chain: give its manifest, e.g\. idx-node reindex -f .*ethereum\.yaml --multi-chain --db-schema=idx-run-multichain-\w+ --targetHeight=5/,
  });
});
