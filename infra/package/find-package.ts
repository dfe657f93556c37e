import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IdxError } from '../../domain/errors.ts';

/**
 * idx's name on the npm registry. The bare name `idx` belongs to an unrelated package, so
 * `npx idx` outside a checkout would run that one; the programs keep their `idx*` names.
 */
export const PACKAGE_NAME = 'idx-stack';

export interface PackageInfo {
  /** the folder holding idx's package.json (and examples/) */
  root: string;
  version: string;
}

/**
 * idx's own package folder, found by walking up from this file: the same code runs from the
 * TypeScript sources (infra/package) and from the compiled dist/infra/package, at different depths.
 */
export function findPackage(from: string = dirname(fileURLToPath(import.meta.url))): PackageInfo {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === PACKAGE_NAME) return { root: dir, version: pkg.version ?? '0.0.0' };
    }
    if (dirname(dir) === dir) throw new IdxError('PACKAGE_NOT_FOUND', `cannot find idx's package.json above ${from}; is idx installed completely?`);
  }
}
