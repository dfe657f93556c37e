import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idxCli, REPO } from './idx-programs.ts';
import type { Teardown } from './teardown.ts';

/** The SubQuery-shaped projects of test/fixtures/real-projects, as a user would have them. */
export const REAL_PROJECTS = join(REPO, 'test', 'fixtures', 'real-projects');

/**
 * A copy of the fixture project `name` with only what a user changes for a local chain (the
 * manifest's addresses and start block) replaced, then `idx codegen` and `idx build` run in it as
 * a user runs them. Removed on teardown.
 */
export async function buildRealProject(t: Teardown, name: string, replace: Record<string, string> = {}): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'idx-real-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const dir = join(parent, name);
  await cp(join(REAL_PROJECTS, name), dir, { recursive: true });
  let manifest = await readFile(join(dir, 'project.yaml'), 'utf8');
  for (const [from, to] of Object.entries(replace)) manifest = manifest.split(from).join(to);
  await writeFile(join(dir, 'project.yaml'), manifest);
  await idxCli(dir, 'codegen');
  await idxCli(dir, 'build');
  return dir;
}
