import type { KnownIds } from '../../../domain/entities/known-ids.ts';
import type { AccessLog } from './access-log.ts';
import type { BlockState } from './block-state.ts';
import type { ReadCache } from './create-read-cache.ts';
import type { createBlockEntropy } from './deterministic.ts';
import { describeThrown } from './describe-thrown.ts';
import type { BlockArguments, Handler, IsolateFamily } from './isolate-family.ts';
import type { createLogBudget, createWriteBudget } from './limits.ts';
import type { AccessEntry, BlockOutcome, BlockPayload, RunOutcome } from './wire.ts';

export interface BlockRunner {
  state: BlockState;
  family: IsolateFamily;
  /** sets the `api` global of the block entered, where the family makes one per block */
  enterApi: ((height: number) => void) | undefined;
  readCache: ReadCache;
  /** the ids of the fresh entity types (domain/entities/known-ids.ts) */
  known: KnownIds;
  logBudget: ReturnType<typeof createLogBudget>;
  writeBudget: ReturnType<typeof createWriteBudget>;
  entropy: ReturnType<typeof createBlockEntropy>;
  /** which entity types each handler read and wrote */
  access: AccessLog;
  /** Int32Array[0]: the call running, [1]: the block of the run (the host reads them when a block times out); [2] ≠ 0: the host asks the run to end after this block */
  progress: Int32Array;
  /** ships the writes buffered so far to the host without waiting (block-state.ts) */
  ship: () => void;
}

/**
 * Runs blocks one after another in one entry into the sandbox, each with `runOne`, until one fails or creates a data
 * source (the later payloads were made without it). Their writes travel as one stream, a marker before each block's
 * (block-state.ts): the host stamps each with its block's height. Each completed block's writes are shipped as the
 * next begins, the last one's come with the outcome; a failed block's writes not yet sent are dropped.
 */
export async function runBlocks(
  r: Pick<BlockRunner, 'state' | 'access' | 'progress' | 'ship'>,
  payloads: readonly (BlockPayload | PayloadCopy)[],
  runOne: (payload: BlockPayload) => Promise<BlockOutcome & { abandon?: true }>,
): Promise<RunOutcome> {
  const { state } = r;
  state.pending = [];
  const access: AccessEntry[] = [];
  for (let i = 0; i < payloads.length; i++) {
    r.progress[1] = i;
    state.blockMark = state.pending.length;
    state.pending.push([-1, 'block', i]);
    // the previous block's writes, with this block's marker: the host learns that block completed as it applies them
    if (i > 0) r.ship();
    state.createdDataSource = false;
    const outcome = await runOne(openPayload(payloads[i]!));
    if (!outcome.ok) {
      state.pending.length = state.blockMark;
      r.access.drop();
      const failed = { call: outcome.call, error: outcome.error, ...(outcome.abandon && { abandon: true as const }) };
      return { completed: i, ...taken(state, access), failed };
    }
    const noted = r.access.take();
    if (noted !== undefined) access.push(...noted);
    if (state.createdDataSource) return { completed: i + 1, ...taken(state, access), created: true, ...(outcome.ran !== undefined && { ran: outcome.ran }) };
    // the host asked the run to end here: its time budget is spent (run-in-runtime.ts)
    if (Atomics.load(r.progress, 2) !== 0) return { completed: i + 1, ...taken(state, access) };
  }
  return { completed: payloads.length, ...taken(state, access) };
}

/** A block's payload still outside the isolate (an isolated-vm ExternalCopy): copied in when its block runs. */
export interface PayloadCopy {
  copy(options: { release: boolean }): BlockPayload;
}

function openPayload(p: BlockPayload | PayloadCopy): BlockPayload {
  return typeof (p as PayloadCopy).copy === 'function' ? (p as PayloadCopy).copy({ release: true }) : (p as BlockPayload);
}

function taken(state: BlockState, access: AccessEntry[]): Pick<RunOutcome, 'writes' | 'sent' | 'access'> {
  const writes = state.pending;
  state.pending = [];
  return access.length === 0 ? { writes, sent: state.sent } : { writes, sent: state.sent, access };
}

/** Runs one block's calls strictly in order, each awaited; their writes stay buffered in the run's stream (runBlocks). */
export async function runBlock(r: BlockRunner, payload: BlockPayload): Promise<BlockOutcome> {
  const { state, readCache } = r;
  state.height = payload.height;
  if (payload.calls.length > 0) state.firstHandledHeight ??= payload.height;
  r.enterApi?.(payload.height);
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
      return { ok: false, call: i, error: { name: 'HandlerNotFound', message: `the project's dist/index.js exports no function named "${name}"` } };
    }
    const arg = args.argOf(i, wire);
    try {
      if (args.invoke === undefined) await (fn as Handler)(arg);
      else await args.invoke(wire, arg, fn as Handler);
    } catch (err) {
      readCache.clear();
      return { ok: false, call: i, error: describeThrown(err) };
    }
    // a data source created: the block's later calls are made again with it (as SubQuery's node runs a new data
    // source on what follows in the block), so the block stops here
    if (state.createdDataSource && i + 1 < payload.calls.length) {
      await workDone(state);
      args.done?.();
      return { ok: true, ran: i + 1 };
    }
  }
  await workDone(state);
  args.done?.();
  return { ok: true };
}

/** Turns given to work that is only promise reactions away from done or from its next host call (a few per await). */
const SETTLING_TURNS = 32;

/**
 * Settles once what the block's handlers started is done, awaited or not: no host call of theirs is unanswered, and
 * what waited on one has had its turns to go on. A handler may start a promise chain and return without it (SubQuery's
 * galxe starter calls its async claim handling so); its reads and writes belong to its block, not to whichever block
 * runs when they end, nor to none when they end between two runs (whose writes were then dropped). A chain that keeps
 * the block from ending is bounded by --timeout, as a handler is.
 */
async function workDone(state: Pick<BlockState, 'inflight'>): Promise<void> {
  for (;;) {
    for (let turn = 0; turn < SETTLING_TURNS && state.inflight.size === 0; turn++) await undefined;
    if (state.inflight.size === 0) return;
    await Promise.all(state.inflight);
  }
}
