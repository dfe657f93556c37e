import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { compiledHash } from '../../scripts/compile.ts';
import { idxCli, REPO } from './idx-programs.ts';
import type { Teardown } from './teardown.ts';
import { copyProject } from './project-copies.ts';

/**
 * The starter ERC20 project after `idx init erc20` + `codegen` + `build`, made once for every test
 * file of a run (by the before step, or by the first file that needs it) in a folder named by a
 * hash of what it is made from: the compiled programs and the starter's sources. Never written to:
 * tests get copies.
 */
export async function sharedErc20Starter(): Promise<string> {
  const hash = createHash('sha256').update(compiledHash() ?? 'unstamped');
  const starter = join(REPO, 'examples', 'erc20');
  for (const file of (await readdir(starter, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort()) {
    hash
      .update(`${relative(starter, file)}\0`)
      .update(await readFile(file))
      .update('\0');
  }
  const home = join(tmpdir(), `idx-test-starter-${hash.digest('hex').slice(0, 16)}`);
  const dir = join(home, 'erc20');
  if (existsSync(join(dir, 'dist', 'index.js'))) return dir;
  await mkdir(home, { recursive: true });
  // Built aside and renamed into place: a concurrent file either wins the rename or uses the winner's.
  const building = await mkdtemp(join(home, 'building-'));
  try {
    await idxCli(building, 'init', 'erc20');
    await idxCli(join(building, 'erc20'), 'codegen');
    await idxCli(join(building, 'erc20'), 'build');
    await rename(join(building, 'erc20'), dir).catch((err: NodeJS.ErrnoException) => {
      if (!existsSync(join(dir, 'dist', 'index.js'))) throw err;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return dir;
}

/** A copy of the built starter ERC20 project, in a temp folder removed on teardown. */
export async function buildErc20Project(t: Teardown): Promise<string> {
  return copyProject(t, await sharedErc20Starter());
}
