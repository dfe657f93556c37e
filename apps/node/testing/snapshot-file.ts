import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { IdxError } from '../../../domain/errors.ts';
import { snapshotFileText } from '../../../domain/testing/snapshot-file-text.ts';
import type { TestSnapshot } from '../../../domain/testing/entity-snapshot.ts';

/**
 * Where a built test file's range-test snapshots live: beside its source, in `__snapshots__/` of
 * the folder `idx build` took it from (`dist/test/transfers.test.js` → `src/test/__snapshots__/transfers.snap.json`).
 * A project without `src/` (built only) keeps them at its root under the same folder
 * (`test/__snapshots__/transfers.snap.json`).
 */
export function snapshotPath(root: string, testFile: string): string {
  const folder = relative(join(root, 'dist'), dirname(testFile));
  const name = basename(testFile).replace(/(\.test)?\.[mc]?js$/, '');
  const src = join(root, 'src');
  return join(existsSync(src) ? src : root, folder, '__snapshots__', `${name}.snap.json`);
}

/** The snapshot file's entries by test name; undefined when there is no file. */
export async function readSnapshotFile(path: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new IdxError('TEST_SNAPSHOT_INVALID', `${path} is not valid JSON (${(err as Error).message}): mend it, or delete it to have it written again`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new IdxError('TEST_SNAPSHOT_INVALID', `${path} is not an object of snapshots by test name: mend it, or delete it to have it written again`);
  return parsed as Record<string, unknown>;
}

/** Writes one test's snapshot into the file, keeping the other tests' entries; written aside and renamed into place. */
export async function writeSnapshot(
  path: string,
  existing: Readonly<Record<string, unknown>> | undefined,
  test: string,
  snapshot: TestSnapshot,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const aside = `${path}.${process.pid}.tmp`;
  await writeFile(aside, snapshotFileText({ ...existing, [test]: snapshot }));
  await rename(aside, path);
}
