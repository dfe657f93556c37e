import { existsSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

/** SubQuery's multichain manifest names; a folder holding one is a multichain project folder. */
export const MULTICHAIN_FILE_NAMES = ['subquery-multichain.ts', 'subquery-multichain.yaml', 'subquery-multichain.yml', 'subquery-multichain.json'] as const;

/**
 * Whether `location` names a multichain project, without reading it (for option checks, which do
 * no I/O beyond this): a folder holding a multichain manifest, or a file named like one.
 */
export function namesMultichain(location: string): boolean {
  const abs = resolve(location);
  if (!existsSync(abs)) return false;
  if (!statSync(abs).isDirectory()) return basename(abs).startsWith('subquery-multichain');
  return MULTICHAIN_FILE_NAMES.some((name) => existsSync(join(abs, name)));
}
