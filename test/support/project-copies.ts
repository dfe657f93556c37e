import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idxCli } from './idx-programs.ts';
import type { Teardown } from './teardown.ts';

/** A copy of a built project (its own `.idx-data`), removed on teardown. */
export async function copyProject(t: Teardown, dir: string): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'idx-e2e-copy-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const copy = join(parent, 'erc20');
  await cp(dir, copy, { recursive: true, filter: (src) => !src.includes('.idx-data') });
  return copy;
}

/** Builds a project (a copy a test changed) again, as `idx build` in its folder. */
export async function rebuild(dir: string): Promise<void> {
  await idxCli(dir, 'build');
}
