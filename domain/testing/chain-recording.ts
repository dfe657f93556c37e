import { IdxError } from '../errors.ts';

/** A JSON-RPC call as the node asked it. */
export interface RecordedCall {
  method: string;
  params: readonly unknown[];
}

/** What the endpoint answered: a result, or the JSON-RPC error it sent. */
export type RecordedAnswer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/**
 * What `idx-node test --record` kept of the chain for one test file: every JSON-RPC call the node
 * made for its tests (start-up's checks, the blocks, the handlers' reads) with the answer, so later
 * runs replay them without the endpoint.
 */
export interface ChainRecording {
  /** the manifest's `network.chainId` when recorded: a recording of another chain is refused */
  chainId: string;
  answers: ReadonlyMap<string, { call: RecordedCall; answer: RecordedAnswer }>;
}

export const RECORDING_FORMAT = 'idx-chain-recording';
export const RECORDING_VERSION = 1;

/** One key per distinct call: the method and its parameters exactly as sent. */
export const callKey = (call: { method: string; params?: readonly unknown[] }): string => `${call.method} ${JSON.stringify(call.params ?? [])}`;

/** A call as an error message shows it: the method and its parameters, long ones cut. */
export function describeCall(call: { method: string; params?: readonly unknown[] }, max = 160): string {
  const params = JSON.stringify(call.params ?? []);
  return `${call.method}(${params.length > max ? `${params.slice(1, max)}…` : params.slice(1, -1)})`;
}

/**
 * The recording as its file holds it: a header line, then one call per line in key order, so that
 * re-recording after a change shows in a diff as the calls that changed.
 */
export function printRecording(recording: ChainRecording): string {
  const lines = [...recording.answers.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, { call, answer }]) => JSON.stringify({ method: call.method, params: call.params, ...answer }));
  const header = JSON.stringify({ format: RECORDING_FORMAT, version: RECORDING_VERSION, chainId: recording.chainId });
  return `${header.slice(0, -1)},"calls":[\n${lines.join(',\n')}\n]}\n`;
}

/** A recording file's text, checked; `file` names it in errors. */
export function parseRecording(text: string, file: string): ChainRecording {
  const bad = (why: string): never => {
    throw new IdxError('TEST_RECORDING_INVALID', `${file}: ${why}; delete it and run idx-node test --record to record it again`);
  };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return bad(`not JSON (${(err as Error).message})`);
  }
  const doc = (raw ?? {}) as Record<string, unknown>;
  if (doc.format !== RECORDING_FORMAT) return bad(`not a chain recording (format should be "${RECORDING_FORMAT}")`);
  if (doc.version !== RECORDING_VERSION) return bad(`recording version ${String(doc.version)} is not ${RECORDING_VERSION}, the one this idx reads`);
  if (typeof doc.chainId !== 'string') return bad('chainId is missing');
  if (!Array.isArray(doc.calls)) return bad('calls is not a list');
  const answers = new Map<string, { call: RecordedCall; answer: RecordedAnswer }>();
  doc.calls.forEach((entry: unknown, i: number) => {
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.method !== 'string' || !Array.isArray(e.params)) return bad(`call ${i + 1} has no method or params`);
    const call = { method: e.method, params: e.params };
    answers.set(callKey(call), { call, answer: answerOf(e, () => bad(`call ${i + 1} (${e.method}) has neither a result nor an error`)) });
  });
  return { chainId: doc.chainId, answers };
}

function answerOf(entry: Record<string, unknown>, bad: () => never): RecordedAnswer {
  if ('result' in entry) return { result: entry.result };
  const error = entry.error as Record<string, unknown> | undefined;
  if (typeof error?.code === 'number' && typeof error.message === 'string')
    return { error: { code: error.code, message: error.message, ...('data' in error && { data: error.data }) } };
  return bad();
}
