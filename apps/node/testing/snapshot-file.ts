import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { IdxError } from '../../../domain/errors.ts';
import { snapshotFileText } from '../../../domain/testing/snapshot-file-text.ts';
import type { TestSnapshot } from '../../../domain/testing/entity-snapshot.ts';
import { readFileIfPresent } from '../../../infra/files/read-file-if-present.ts';
import { writeWholeFile } from '../../../infra/files/write-whole-file.ts';
import { builtTestSource } from './find-test-files.ts';

/**
 * Where a built test file's range-test snapshots live: beside its source, in `__snapshots__/` of
 * the folder `idx build` took it from (`dist/test/transfers.test.js` → `src/test/__snapshots__/transfers.snap.json`).
 * A project without `src/` (built only) keeps them at its root under the same folder
 * (`test/__snapshots__/transfers.snap.json`).
 */
export function snapshotPath(root: string, testFile: string): string {
  const { folder, name } = builtTestSource(root, testFile);
  const src = join(root, 'src');
  return join(existsSync(src) ? src : root, folder, '__snapshots__', `${name}.snap.json`);
}

/** The snapshot file's entries by test name; undefined when there is no file. */
export async function readSnapshotFile(path: string): Promise<Record<string, unknown> | undefined> {
  const text = await readFileIfPresent(path);
  if (text === undefined) return undefined;
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
  await writeWholeFile(path, snapshotFileText({ ...existing, [test]: snapshot }));
}
