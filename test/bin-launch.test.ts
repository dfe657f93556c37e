import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { REPO } from './support/idx-programs.ts';

/**
 * What a checkout's programs run (bin/launch.js): dist/ while its stamp is the hash of the sources
 * now (no tsx compile at each start), the sources through tsx as soon as one differs (a stale dist/
 * never runs), and dist/ always where there are no sources (an installed package). Seen on a
 * checkout of its own whose one program says where it was loaded from.
 */
const runFile = promisify(execFile);

const stampFile = (root: string) => join(root, 'dist', '.source-hash');

/** Stamps dist/ as `npm run build` does, with the hash of the sources now (bin/source-hash.js, run as the build runs it). */
async function stamp(root: string): Promise<void> {
  const { stdout } = await runFile(process.execPath, [join(REPO, 'bin', 'source-hash.js'), root]);
  await writeFile(stampFile(root), stdout);
}

/** A checkout with the files the stamp covers, a program in its sources and in dist/, and dist/ stamped. */
async function checkout(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'idx-launch-'));
  const write = async (path: string, text: string) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  };
  for (const file of ['bin/launch.js', 'bin/source-hash.js']) await cp(join(REPO, file), join(root, file));
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'scripts/compile.ts', 'scripts/bundle-programs.ts', 'scripts/bundle-rules.ts'])
    await write(file, '');
  for (const dir of ['domain', 'infra', 'devchain']) await mkdir(join(root, dir), { recursive: true });
  await write('package.json', '{ "type": "module" }\n');
  await write('infra/logging/ignore-closed-output.ts', 'export function ignoreClosedOutput(): void {}\n');
  await write('dist/infra/logging/ignore-closed-output.js', 'export function ignoreClosedOutput() {}\n');
  await write('apps/probe.ts', "export const from: string = 'sources';\n");
  await write('dist/apps/probe.js', "export const from = 'dist';\n");
  await write('bin/probe.js', "import { load } from './launch.js';\nconsole.log((await load('apps/probe')).from);\n");
  // tsx, for the sources
  await symlink(join(REPO, 'node_modules'), join(root, 'node_modules'));
  await stamp(root);
  return root;
}

async function loadedFrom(root: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await runFile(process.execPath, [join(root, 'bin', 'probe.js')], { env: { PATH: process.env.PATH ?? '', ...env } });
  return stdout.trim();
}

t.test('dist/ while it is what the sources say, the sources once they differ', async (t) => {
  const root = await checkout();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  t.equal(await loadedFrom(root), 'dist', 'stamped with the sources now: dist/');
  t.equal(await loadedFrom(root, { IDX_COMPILED: '0' }), 'sources', 'IDX_COMPILED=0: the sources all the same');
  await writeFile(join(root, 'apps', 'probe.ts'), "export const from: string = 'sources'; // edited\n");
  t.equal(await loadedFrom(root), 'sources', 'a source edited since: the sources');
  t.equal(await loadedFrom(root, { IDX_COMPILED: '1' }), 'dist', 'IDX_COMPILED=1: dist/ all the same');
  await stamp(root);
  t.equal(await loadedFrom(root), 'dist', 'built again: dist/');
  await writeFile(join(root, 'domain', 'new-module.ts'), 'export {};\n');
  t.equal(await loadedFrom(root), 'sources', 'a source added since: the sources');
});

t.test('no stamp (a dist/ from an older build) runs the sources; no sources (an installed package) runs dist/', async (t) => {
  const root = await checkout();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await rm(stampFile(root));
  t.equal(await loadedFrom(root), 'sources', 'unstamped: the sources');
  await rm(join(root, 'apps', 'probe.ts'));
  await rm(join(root, 'infra', 'logging', 'ignore-closed-output.ts'));
  t.equal(await loadedFrom(root), 'dist', 'no sources: dist/');
});
