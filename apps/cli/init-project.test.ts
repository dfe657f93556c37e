import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { IdxError } from '../../domain/errors.ts';
import { loadProject } from '../../infra/project/load-project.ts';
import { initProject, STARTER_GITIGNORE } from './init-project.ts';
import type { Reporter } from './reporter.ts';

const EXAMPLE = resolve(fileURLToPath(import.meta.url), '../../../examples/erc20');
const quiet: Reporter = { info: () => undefined, warn: () => undefined };

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'idx-init-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

t.test('init copies examples/erc20 under the new name, as a valid project for a local chain', async (t) => {
  const cwd = await tempDir(t);
  const { dir, name } = await initProject({ name: 'My-Token', cwd, reporter: quiet });
  t.equal(dir, join(cwd, 'My-Token'));
  t.equal(name, 'My-Token');
  t.same((await readdir(dir)).sort(), ['.gitignore', 'README.md', 'abis', 'package.json', 'project.ts', 'schema.graphql', 'src', 'tsconfig.json']);
  t.equal(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).name, 'my-token', 'npm names are lower case');
  t.match(await readFile(join(dir, 'README.md'), 'utf8'), /^# My-Token\n/);

  const project = await loadProject(dir);
  t.equal(project.manifest.name, 'My-Token');
  t.equal(project.manifest.network?.chainId, '31337');
  t.same(project.manifest.network?.endpoints, [{ url: 'http://127.0.0.1:8545' }]);
  const ds = project.manifest.dataSources[0]!;
  t.equal(ds.startBlock, 1);
  t.equal(ds.options?.address, '0x5FbDB2315678afecb367f032d93F642f64180aa3');
  t.same(
    ds.mapping.handlers.map((h) => [h.kind, h.handler, h.filter]),
    [
      ['ethereum/LogHandler', 'handleTransfer', { topics: ['Transfer(address indexed from, address indexed to, uint256 value)'] }],
      ['ethereum/BlockHandler', 'handleBlock', { modulo: 5 }],
    ],
  );
  t.match(await readFile(join(dir, 'schema.graphql'), 'utf8'), /type StarterEntity @entity \{\n\s+id: ID!.*\n\s+blockHeight: BigInt!/);
});

t.test('init --network substrate copies examples/substrate: a Substrate project for a local chopsticks chain', async (t) => {
  const cwd = await tempDir(t);
  const { dir } = await initProject({ name: 'my-chain', cwd, network: 'substrate', reporter: quiet });
  const project = await loadProject(dir);
  t.equal(project.manifest.name, 'my-chain');
  t.equal(project.manifest.network?.chainId, `0x${'45'.repeat(32)}`);
  t.same(
    project.manifest.dataSources[0]!.mapping.handlers.map((h) => [h.kind, h.handler, h.filter]),
    [
      ['substrate/EventHandler', 'handleTransfer', { module: 'balances', method: 'Transfer' }],
      ['substrate/CallHandler', 'handleBatch', { module: 'utility', method: 'batchAll' }],
      ['substrate/BlockHandler', 'handleBlock', { modulo: 10 }],
    ],
  );
  t.equal(await readFile(join(dir, '.gitignore'), 'utf8'), STARTER_GITIGNORE);
  await t.rejects(initProject({ name: 'other', cwd, network: 'cosmos', reporter: quiet }), {
    code: 'INIT_BAD_NETWORK',
    message: /--network cosmos: idx init has starters for ethereum and substrate/,
  });
});

t.test('the .gitignore init writes is the one in examples/erc20 (npm does not publish .gitignore files)', async (t) => {
  t.equal(await readFile(join(EXAMPLE, '.gitignore'), 'utf8'), STARTER_GITIGNORE);
  t.equal(await readFile(join(EXAMPLE, '..', 'substrate', '.gitignore'), 'utf8'), STARTER_GITIGNORE);
});

t.test('build output and generated files of the example are not copied', async (t) => {
  const template = await tempDir(t);
  await writeFile(join(template, 'schema.graphql'), 'type A @entity { id: ID! }\n');
  for (const skipped of ['dist', 'node_modules/x', 'src/types', '.idx-data']) {
    await mkdir(join(template, skipped), { recursive: true });
    await writeFile(join(template, skipped, 'f'), '');
  }
  await writeFile(join(template, 'src', 'index.ts'), '');
  const cwd = await tempDir(t);
  const { dir } = await initProject({ name: 'p', cwd, template, reporter: quiet });
  t.same((await readdir(dir)).sort(), ['.gitignore', 'schema.graphql', 'src']);
  t.same(await readdir(join(dir, 'src')), ['index.ts']);
});

t.test('init never overwrites: a non-empty folder or a file is refused, an empty folder is used', async (t) => {
  const cwd = await tempDir(t);
  await mkdir(join(cwd, 'busy'));
  await writeFile(join(cwd, 'busy', 'keep.txt'), 'mine');
  const busy = await initProject({ name: 'busy', cwd, reporter: quiet }).catch((e: unknown) => e);
  t.type(busy, IdxError);
  t.equal((busy as IdxError).code, 'INIT_TARGET_EXISTS');
  t.match((busy as IdxError).message, /busy exists and is not empty; idx init does not overwrite files/);
  t.same(await readdir(join(cwd, 'busy')), ['keep.txt']);

  await writeFile(join(cwd, 'afile'), '');
  t.equal(((await initProject({ name: 'afile', cwd, reporter: quiet }).catch((e: unknown) => e)) as IdxError).code, 'INIT_TARGET_EXISTS');

  await mkdir(join(cwd, 'empty'));
  await initProject({ name: 'empty', cwd, reporter: quiet });
  t.ok(existsSync(join(cwd, 'empty', 'project.ts')));

  const bad = (await initProject({ name: 'no spaces', cwd, reporter: quiet }).catch((e: unknown) => e)) as IdxError;
  t.equal(bad.code, 'INIT_BAD_NAME');
  t.notOk(existsSync(join(cwd, 'no spaces')));
});

t.test('the name is a plain folder name in the current folder: paths, long names, names npm refuses and links are refused', async (t) => {
  const parent = await tempDir(t);
  const cwd = join(parent, 'here');
  await mkdir(cwd);
  const refusal = async (name: string) => (await initProject({ name, cwd, reporter: quiet }).catch((e: unknown) => e)) as IdxError;
  for (const name of ['../escape', 'a/b', join(parent, 'abs'), '..', '.', 'a\\b']) {
    const err = await refusal(name);
    t.equal(err.code, 'INIT_BAD_NAME', name);
    t.match(err.message, 'is a path: idx init takes a project name and creates a folder of that name in the current folder', name);
  }
  t.notOk(existsSync(join(parent, 'escape')));
  t.notOk(existsSync(join(parent, 'abs')));
  t.match((await refusal('a'.repeat(64))).message, /is 64 characters long; a project name has at most 63 \(it is the default database schema name/);
  t.match((await refusal('Node_Modules')).message, 'npm refuses "node_modules" as a package name');
  t.match((await refusal('fs')).message, 'npm refuses "fs" as a package name');
  await symlink(parent, join(cwd, 'link'));
  t.match((await refusal('link')).message, /link is a symbolic link; idx init creates a real folder/);
  t.same(await readdir(cwd), ['link'], 'nothing created');
  await initProject({ name: 'a'.repeat(63), cwd, reporter: quiet });
  t.ok(existsSync(join(cwd, 'a'.repeat(63), 'project.ts')), '63 characters fit');
});
