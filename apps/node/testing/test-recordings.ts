import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { parseRecording, printRecording, type ChainRecording } from '../../../domain/testing/chain-recording.ts';

/** The folder beside a test's source where its recording is kept. */
export const RECORDINGS_FOLDER = '__recordings__';

/**
 * Where the recording of a built test file lives: beside its source, `dist/test/transfer.test.js`
 * → `src/test/__recordings__/transfer.json`, so that it is committed with the test.
 */
export function recordingPathOf(projectRoot: string, builtTestFile: string): string {
  const underDist = relative(join(projectRoot, 'dist'), builtTestFile);
  const name = basename(underDist).replace(/\.test\.js$/, '');
  return join(projectRoot, 'src', dirname(underDist), RECORDINGS_FOLDER, `${name}.json`);
}

/** The recording at `path`, or undefined when there is none. */
export async function readRecording(path: string): Promise<ChainRecording | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return parseRecording(text, path);
}

/** Writes the recording whole or not at all: a run stopped halfway leaves the previous one. */
export async function writeRecording(path: string, recording: ChainRecording): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  await writeFile(partial, printRecording(recording));
  await rename(partial, path);
}
