import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { IdxError } from '../../domain/errors.ts';
import { findPackage } from '../../infra/package/find-package.ts';

/**
 * The Node arguments of `idx test <args>`: idx-node's `test` with every argument the user gave, unchanged.
 * idx-node is run as a program, not imported (apps do not import each other), with the flag every idx program
 * runs with (isolated-vm needs it on Node 20).
 */
export function idxNodeTestArgv(packageRoot: string, args: readonly string[]): string[] {
  return ['--no-node-snapshot', join(packageRoot, 'bin', 'idx-node.js'), 'test', ...args];
}

/** Runs `idx-node test <args>` with this terminal and returns its exit code (1 when a signal ended it). */
export function runIdxNodeTest(args: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, idxNodeTestArgv(findPackage().root, args), { stdio: 'inherit' });
  // Ctrl-C reaches the child from the terminal itself (same process group), and idx-node quits at once on a
  // second SIGINT: idx only waits. A SIGTERM sent to idx alone is handed on, so the child is not left behind.
  const ignore = () => {};
  const forward = () => void child.kill('SIGTERM');
  process.on('SIGINT', ignore);
  process.on('SIGTERM', forward);
  return new Promise<number>((done, fail) => {
    child.once('error', (err) => fail(new IdxError('IDX_NODE_START_FAILED', `cannot run idx-node: ${err.message}`)));
    child.once('close', (code) => done(code ?? 1));
  }).finally(() => {
    process.off('SIGINT', ignore);
    process.off('SIGTERM', forward);
  });
}
