import type { RecordedAnswer, RecordedCall } from '../../domain/testing/chain-recording.ts';
import type { RpcCall, RpcClient } from './create-rpc-client.ts';
import { RpcError } from './rpc-error.ts';
import { settledCalls, type RpcSettled } from './rpc-settled.ts';

/**
 * What a taped client does with each call, asked afresh per call so that the test runner can turn
 * to another test file's recording between tests: ask the endpoint, ask it and keep the answer, or
 * answer from a recording (`answer` throws when the recording lacks the call).
 */
export type TapeMode =
  | { kind: 'live' }
  | { kind: 'record'; keep(call: RecordedCall, answer: RecordedAnswer): void }
  | { kind: 'replay'; answer(call: RecordedCall): RecordedAnswer };

/** A replayed answer is said to come from here, where an endpoint's label would be. */
export const RECORDING_ENDPOINT = 'recording';

/**
 * An RPC client behind a tape: in `record` mode every call the endpoint answered (with a result or a
 * JSON-RPC error) is kept; in `replay` mode no endpoint is asked. Calls that reach no endpoint are
 * not kept: a recording holds only what the chain said.
 */
export function tapedClient(inner: RpcClient, mode: () => TapeMode): RpcClient {
  const batchSettled = async (calls: readonly RpcCall[]): Promise<RpcSettled[]> => {
    const m = mode();
    if (m.kind === 'replay') return calls.map((c) => replayed(c, m.answer(recordedCall(c))));
    const settled = await inner.batchSettled(calls);
    if (m.kind === 'record') settled.forEach((s, i) => m.keep(recordedCall(calls[i]!), answerOf(s)));
    return settled;
  };
  return {
    endpoints: inner.endpoints,
    distrust: (endpoint) => inner.distrust(endpoint),
    batchSettled,
    async batchEach(calls) {
      const m = mode();
      if (m.kind === 'replay') return [{ endpoint: RECORDING_ENDPOINT, settled: await batchSettled(calls) }];
      const answers = await inner.batchEach(calls);
      const first = answers.find((a) => 'settled' in a);
      if (m.kind === 'record' && first !== undefined && 'settled' in first) first.settled.forEach((s, i) => m.keep(recordedCall(calls[i]!), answerOf(s)));
      return answers;
    },
    ...settledCalls(batchSettled),
  };
}

const recordedCall = (call: RpcCall): RecordedCall => ({ method: call.method, params: call.params ?? [] });

function answerOf(settled: RpcSettled): RecordedAnswer {
  if (settled.ok) return { result: settled.value ?? null };
  const e = settled.error;
  return { error: { code: e.rpcCode, message: e.rpcMessage, ...(e.data !== undefined && { data: e.data }) } };
}

/** A recorded answer as the endpoint's would be; a copy, as callers may change what they are given. */
function replayed(call: RpcCall, answer: RecordedAnswer): RpcSettled {
  if ('result' in answer) return { ok: true, value: structuredClone(answer.result), endpoint: RECORDING_ENDPOINT };
  return { ok: false, error: new RpcError(call.method, structuredClone(answer.error), { endpoint: RECORDING_ENDPOINT }) };
}
