import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RECORDINGS_FOLDER } from '../../apps/node/testing/test-recordings.ts';
import { REPO } from './idx-programs.ts';

/**
 * Recordings of SubQuery starters' own mapping tests (`idx-node test --record` on a copy of
 * test/fixtures/substrate-projects/<starter> pointed at the chain of `npm run test:subql-compare`),
 * which test/substrate-starter-tests.test.ts replays with no chain. Recorded again by
 * `npm run test:subql-compare -- --record-fixtures` (docs/testing.md).
 */
export const STARTER_RECORDINGS = join(REPO, 'test', 'fixtures', 'substrate-starter-recordings');

/**
 * The starters recorded, one per outcome of the comparison: a pass on the local runtime (statemine),
 * a pass with chain types from an npm package (acala), a pass with `network.bypassBlocks` (avail), a
 * handler that throws (polkadot: `Signer is missing`), a handler no data source names (humanode).
 */
export const RECORDED_STARTERS = ['statemine-starter', 'acala-starter', 'avail-starter', 'polkadot-starter', 'humanode-starter'] as const;
export type RecordedStarter = (typeof RECORDED_STARTERS)[number];

/** Each of these starters has one test file, `src/test/mappingHandlers.test.ts`: its recording in a copy. */
export const copyRecording = (dir: string): string => join(dir, 'src', 'test', RECORDINGS_FOLDER, 'mappingHandlers.json');

/** The committed recording of a starter. */
export const starterRecording = (starter: string): string => join(STARTER_RECORDINGS, `${starter}.json`);

/** Keeps the recording `idx-node test --record` made in the starter's copy `dir` as its fixture. */
export async function keepRecording(starter: string, dir: string): Promise<string> {
  await mkdir(STARTER_RECORDINGS, { recursive: true });
  await copyFile(copyRecording(dir), starterRecording(starter));
  return starterRecording(starter);
}

/** Puts the starter's committed recording where `idx-node test` replays it from in the copy `dir`. */
export async function placeRecording(starter: string, dir: string): Promise<void> {
  await mkdir(dirname(copyRecording(dir)), { recursive: true });
  await copyFile(starterRecording(starter), copyRecording(dir));
}
