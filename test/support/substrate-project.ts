import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN, REPO } from './erc20-project.ts';

const run = promisify(execFile);

/** examples/substrate copied, `idx codegen` and `idx build` run on it as a user does, in a temp folder removed on teardown. */
export async function buildSubstrateStarter(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'idx-substrate-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const built = join(parent, 'substrate-starter');
  await cp(join(REPO, 'examples', 'substrate'), built, { recursive: true });
  await run(process.execPath, ['--no-node-snapshot', BIN('idx'), 'codegen'], { cwd: built });
  await run(process.execPath, ['--no-node-snapshot', BIN('idx'), 'build'], { cwd: built });
  return built;
}
