import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rebuild } from './project-copies.ts';

/**
 * Rewrites the starter's mapping (src/mappings/erc20.ts) in the project copy at `dir` with `patch`,
 * which checks its change took (the starter may have moved on) before anything is written. The
 * caller builds the project again.
 */
export async function patchStarterMapping(dir: string, patch: (source: string) => string): Promise<void> {
  const mapping = join(dir, 'src', 'mappings', 'erc20.ts');
  await writeFile(mapping, patch(await readFile(mapping, 'utf8')));
}

/** The starter mapping's `source` with `code` put first in handleTransfer (unchanged if it has none). */
export function atTransferStart(source: string, code: string): string {
  return source.replace(/(export async function handleTransfer\([^)]*\)[^{]*\{)/, `$1\n  ${code}`);
}

/**
 * Makes each Transfer handler take about `ms`, so a run lasts long enough to be interrupted. A
 * blocking wait, not a `Date.now()` busy loop: the sandbox's clock is the block's, not the wall's.
 */
export async function slowDownTransfers(dir: string, ms: number): Promise<void> {
  await patchStarterMapping(dir, (source) => {
    const patched = atTransferStart(source, `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms});`);
    if (patched === source) throw new Error('handleTransfer not found in the starter mapping');
    return patched;
  });
  await rebuild(dir);
}
