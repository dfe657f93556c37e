import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseRecording, printRecording, type ChainRecording } from '../../../domain/testing/chain-recording.ts';
import { readFileIfPresent } from '../../../infra/files/read-file-if-present.ts';
import { writeWholeFile } from '../../../infra/files/write-whole-file.ts';
import { builtTestSource } from './find-test-files.ts';

/** The folder beside a test's source where its recording is kept. */
export const RECORDINGS_FOLDER = '__recordings__';

/**
 * Where the recording of a built test file lives: beside its source, `dist/test/transfer.test.js`
 * → `src/test/__recordings__/transfer.json`, so that it is committed with the test.
 */
export function recordingPathOf(projectRoot: string, builtTestFile: string): string {
  const { folder, name } = builtTestSource(projectRoot, builtTestFile);
  return join(projectRoot, 'src', folder, RECORDINGS_FOLDER, `${name}.json`);
}

/** The recording at `path`, or undefined when there is none. */
export async function readRecording(path: string): Promise<ChainRecording | undefined> {
  const text = await readFileIfPresent(path);
  return text === undefined ? undefined : parseRecording(text, path);
}

/** Writes the recording whole or not at all: a run stopped halfway leaves the previous one. */
export async function writeRecording(path: string, recording: ChainRecording): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeWholeFile(path, printRecording(recording));
}
