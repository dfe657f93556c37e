import type { KnownIds } from '../../../domain/entities/known-ids.ts';
import type { AccessLog } from './access-log.ts';
import type { BlockState } from './block-state.ts';
import type { ReadCache } from './create-read-cache.ts';
import type { createBlockEntropy } from './deterministic.ts';
import { describeThrown } from './describe-thrown.ts';
import type { BlockArguments, Handler, IsolateFamily } from './isolate-family.ts';
import type { createLogBudget, createWriteBudget } from './limits.ts';
import type { BlockOutcome, BlockPayload } from './wire.ts';

export interface BlockRunner {
  state: BlockState;
  family: IsolateFamily;
  readCache: ReadCache;
  /** the ids of the fresh entity types (domain/entities/known-ids.ts) */
  known: KnownIds;
  logBudget: ReturnType<typeof createLogBudget>;
  writeBudget: ReturnType<typeof createWriteBudget>;
  entropy: ReturnType<typeof createBlockEntropy>;
  /** which entity types each handler read and wrote */
  access: AccessLog;
  /** Int32Array[0]: the call running, which the host reads when a block times out */
  progress: Int32Array;
}

/** Runs one block's calls strictly in order, each awaited; the writes they buffered, or the call that failed. */
export async function runBlock(r: BlockRunner, payload: BlockPayload): Promise<BlockOutcome> {
  const { state, readCache } = r;
  state.height = payload.height;
  state.pending = [];
  // a height seen again means a rewind or a retry; `fresh`, that the host dropped the last block
  if (payload.fresh || payload.height <= state.lastHeight) readCache.clear();
  if (payload.forgetKnownIds) r.known.forgetAll();
  state.lastHeight = payload.height;
  r.logBudget.reset();
  r.writeBudget.reset();
  r.entropy.enter(Number(payload.block.timestamp), String(payload.block.hash));
  let args: BlockArguments;
  try {
    const made = r.family.enterBlock(payload);
    // a family that makes its arguments at once is not made to wait a turn
    args = made instanceof Promise ? await made : made;
  } catch (err) {
    r.access.drop();
    return { ok: false, call: 0, error: describeThrown(err) };
  }
  const { handlers } = state;
  for (let i = 0; i < payload.calls.length; i++) {
    const wire = payload.calls[i]!;
    const name = wire[0];
    state.current = i;
    state.handler = name;
    r.progress[0] = i;
    // own properties only: a manifest naming `toString` must not reach Object.prototype
    const fn = Object.prototype.hasOwnProperty.call(handlers, name) ? handlers[name] : undefined;
    if (typeof fn !== 'function') {
      readCache.clear();
      r.access.drop();
      return { ok: false, call: i, error: { name: 'HandlerNotFound', message: `the project's dist/index.js exports no function named "${name}"` } };
    }
    const arg = args.argOf(i, wire);
    try {
      if (args.invoke === undefined) await (fn as Handler)(arg);
      else await args.invoke(wire, arg, fn as Handler);
    } catch (err) {
      state.pending = [];
      readCache.clear();
      r.access.drop();
      return { ok: false, call: i, error: describeThrown(err) };
    }
  }
  args.done?.();
  const writes = state.pending;
  state.pending = [];
  const access = r.access.take();
  return access === undefined ? { ok: true, writes } : { ok: true, writes, access };
}
