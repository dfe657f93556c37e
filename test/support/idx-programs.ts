import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = (name: string) => join(REPO, 'bin', `${name}.js`);

/**
 * Spawned idx programs run compiled (dist/), as users run them: the suite's before step
 * (test/support/before-suite.ts) compiles dist/ whenever it is older than the sources.
 * `IDX_COMPILED=0` in the environment runs them from the TypeScript instead, `IDX_BUNDLE=0` from the
 * unbundled dist/ (to compare).
 */
export const PROGRAM_ENV = { IDX_COMPILED: process.env.IDX_COMPILED === '0' ? '0' : '1', ...(process.env.IDX_BUNDLE === '0' && { IDX_BUNDLE: '0' }) };

/** The environment of a spawned idx program: PATH, the compiled-program switch, and what the test gives it. */
export function programEnv(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { PATH: process.env.PATH, ...PROGRAM_ENV, ...env };
}

/** Runs `idx <args>` (init, codegen, build) in `cwd`. */
export async function idxCli(cwd: string, ...args: string[]): Promise<void> {
  await run(process.execPath, ['--no-node-snapshot', BIN('idx'), ...args], { cwd, env: programEnv() });
}
