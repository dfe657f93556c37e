import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { idxCli } from '../../test/support/idx-cli.ts';
import { findPackage } from '../../infra/package/find-package.ts';

const cli = (args: string[]) => idxCli(args);

t.test('--version and --help', async (t) => {
  t.same(await cli(['--version']), { code: 0, stdout: `${findPackage().version}\n`, stderr: '' });
  const help = await cli(['--help']);
  t.equal(help.code, 0);
  for (const cmd of ['build', 'codegen', 'init [options] <name>', 'test [args...]']) t.match(help.stdout, cmd);
  const build = await cli(['build', '--help']);
  t.equal(build.code, 0);
  t.match(build.stdout.replace(/\s+/g, ' '), /-l, --location <folder> local project folder \(default: "\."\)/);
  t.match(build.stdout, /-o, --output <folder>/);
  t.match(build.stdout.replace(/\s+/g, ' '), /--mode <mode> build mode \(choices: "production", "development", default: "production"\)/);
  t.match((await cli(['codegen', '--help'])).stdout, /-f, --file <manifest>/);
  const test = await cli(['test', '--help']);
  t.equal(test.code, 0);
  t.match(test.stdout, /same as idx-node test/);
  t.match(test.stdout, /see idx-node test --help/);
});

t.test('bad usage exits non-zero and names the culprit', async (t) => {
  const mode = await cli(['build', '--mode', 'fast']);
  t.equal(mode.code, 1);
  t.match(mode.stderr, /option '--mode <mode>' argument 'fast' is invalid\. Allowed choices are production, development\./);
  const unknown = await cli(['build', '--minify']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /unknown option '--minify'/);
  const command = await cli(['deploy']);
  t.equal(command.code, 1);
  t.match(command.stderr, /unknown command 'deploy'/);
  const noName = await cli(['init']);
  t.equal(noName.code, 1);
  t.match(noName.stderr, /missing required argument 'name'/);
});

t.test('a failing command prints its error for users, not a stack, and exits 1', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-main-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const build = await cli(['build', '-l', dir]);
  t.equal(build.code, 1);
  t.match(build.stderr, /^error: .*src\/index\.ts does not exist: idx build always bundles src\/index\.ts/);
  t.notMatch(build.stderr, /\n\s+at /);
  const codegen = await cli(['codegen', '--location', dir]);
  t.equal(codegen.code, 1);
  t.match(codegen.stderr, /^error: no project manifest in /);
});

t.test('a manifest problem naming an endpoint by its URL prints it redacted (issue 27, item 6)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-main-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const url = 'https://indexer:hunter2-s3cret@rpc.example/v3/9aa3d95b3bc440fa88ea12eaa4456161?apikey=k-s3cret';
  await writeFile(join(dir, 'schema.graphql'), 'type T @entity {\n  id: ID!\n}\n');
  await writeFile(
    join(dir, 'project.yaml'),
    `specVersion: 1.0.0\nname: p\nversion: 0.0.1\nrunner:\n  node:\n    name: "@subql/node-ethereum"\n    version: "*"\n  query:\n    name: "@subql/query"\n    version: "*"\nschema:\n  file: ./schema.graphql\nnetwork:\n  chainId: "1"\n  endpoint:\n    ${JSON.stringify(url)}:\n      batchSize: 0\ndataSources: []\n`,
  );
  // a problem only idx-node would refuse: codegen warns
  const codegen = await cli(['codegen', '--location', dir]);
  t.match(codegen.stderr, 'warning: '.concat(join(dir, 'project.yaml'), ': network.endpoint["https://***@rpc.example/v3/***?apikey=***"].batchSize'));
  t.notMatch(codegen.stderr, /hunter2|9aa3d95b3bc440fa88ea12eaa4456161|k-s3cret/);
});
