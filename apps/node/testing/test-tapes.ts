import { relative } from 'node:path';
import { IdxError } from '../../../domain/errors.ts';
import { callKey, describeCall, type ChainRecording, type RecordedAnswer, type RecordedCall } from '../../../domain/testing/chain-recording.ts';
import type { TapeMode } from '../../../infra/rpc/taped-client.ts';

type Answers = Map<string, { call: RecordedCall; answer: RecordedAnswer }>;

/** One test file as the tapes know it: where its recording lives and the recording, if there is one. */
export interface TapedFile {
  file: string;
  recordingPath: string;
  recording: ChainRecording | undefined;
}

/**
 * The chain as `idx-node test` sees it, file by file: recorded (`--record`: the endpoint's answers
 * kept per test file, start-up's with every file), replayed (a file with a recording: no endpoint
 * asked), or live (a file without one). `mode` is what the taped clients ask before each call.
 */
export interface TestTapes {
  mode(): TapeMode;
  /** from here on, the calls are this file's */
  useFile(file: TapedFile): void;
  /** what was recorded for the current file since `useFile` (with start-up's calls) */
  recorded(): ChainRecording;
  /** the calls the current recording lacked since last asked: a test that made any fails, even if its mapping caught the error */
  takeMisses(): string[];
}

export interface TestTapesInput {
  record: boolean;
  chainId: string;
  projectRoot: string;
  files: readonly TapedFile[];
}

/** Start-up replays only when every file it runs has a recording: otherwise it needs the endpoint anyway. */
export function createTestTapes(input: TestTapesInput): TestTapes {
  const startUp: Answers = new Map();
  let current: Answers = startUp;
  let misses: string[] = [];
  const shown = (path: string) => relative(input.projectRoot, path);
  const recordInto = (answers: Answers): TapeMode => ({ kind: 'record', keep: (call, answer) => answers.set(callKey(call), { call, answer }) });
  const replayFrom = (recordings: readonly { path: string; recording: ChainRecording }[]): TapeMode => ({
    kind: 'replay',
    answer(call) {
      for (const r of recordings) {
        const found = r.recording.answers.get(callKey(call));
        if (found !== undefined) return found.answer;
      }
      const miss = notRecorded(call, recordings.map((r) => shown(r.path)).join(', '));
      misses.push(miss.message);
      throw miss;
    },
  });

  const recorded = input.files.flatMap((f) => (f.recording === undefined ? [] : [{ path: f.recordingPath, recording: f.recording }]));
  for (const r of recorded) checkChain(r.recording, input.chainId, shown(r.path));
  let mode: TapeMode = input.record
    ? recordInto(startUp)
    : recorded.length === input.files.length && recorded.length > 0
      ? replayFrom(recorded)
      : { kind: 'live' };

  return {
    mode: () => mode,
    useFile(file) {
      misses = [];
      if (input.record) {
        current = new Map(startUp);
        mode = recordInto(current);
      } else mode = file.recording === undefined ? { kind: 'live' } : replayFrom([{ path: file.recordingPath, recording: file.recording }]);
    },
    recorded: () => ({ chainId: input.chainId, answers: new Map(current) }),
    takeMisses() {
      const taken = misses;
      misses = [];
      return taken;
    },
  };
}

function checkChain(recording: ChainRecording, chainId: string, path: string): void {
  if (recording.chainId.toLowerCase() !== chainId.toLowerCase())
    throw new IdxError(
      'TEST_RECORDING_MISMATCH',
      `${path} was recorded from chain ${recording.chainId}, but the manifest's network.chainId is ${chainId}: run idx-node test --record to record it from this chain`,
    );
}

function notRecorded(call: RecordedCall, paths: string): IdxError {
  return new IdxError(
    'TEST_NOT_RECORDED',
    `${paths} holds no answer for ${describeCall(call)}: the project asks the chain for something it did not when the recording was made. ` +
      'Run idx-node test --record, with the endpoint reachable, to record the tests again',
  );
}
