import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idxCli, REPO } from './idx-programs.ts';
import type { Teardown } from './teardown.ts';

/** examples/substrate copied, `idx codegen` and `idx build` run on it as a user does, in a temp folder removed on teardown. */
export async function buildSubstrateStarter(t: Teardown): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'idx-substrate-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const built = join(parent, 'substrate-starter');
  await cp(join(REPO, 'examples', 'substrate'), built, { recursive: true });
  await idxCli(built, 'codegen');
  await idxCli(built, 'build');
  return built;
}
