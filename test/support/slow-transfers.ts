import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rebuild } from './project-copies.ts';

/**
 * Makes each Transfer handler take about `ms`, so a run lasts long enough to be interrupted. A
 * blocking wait, not a `Date.now()` busy loop: the sandbox's clock is the block's, not the wall's.
 */
export async function slowDownTransfers(dir: string, ms: number): Promise<void> {
  const mapping = join(dir, 'src', 'mappings', 'erc20.ts');
  const source = await readFile(mapping, 'utf8');
  const patched = source.replace(
    /(export async function handleTransfer\([^)]*\)[^{]*\{)/,
    `$1\n  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms});`,
  );
  if (patched === source) throw new Error('handleTransfer not found in the starter mapping');
  await writeFile(mapping, patched);
  await rebuild(dir);
}
