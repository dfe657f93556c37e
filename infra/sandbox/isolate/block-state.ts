import type { Write } from './create-store.ts';
import { formatSize, measure, type SandboxLimits } from './limits.ts';
import type { Bridge, HostOp, WriteOp } from './wire.ts';

/** What the runtime inside keeps between a block's calls and from block to block. */
export interface BlockState {
  /** store writes buffered since the last crossing, each tagged with its call, the blocks of a run told apart by markers */
  pending: WriteOp[];
  /** where the running block's writes begin in `pending` (its marker; 0 once a crossing took the earlier ones) */
  blockMark: number;
  /** batches of writes shipped so far (Bridge.send), for the life of the runtime */
  sent: number;
  /** the running block created a data source: the block stops after the call that did, the run after the block */
  createdDataSource: boolean;
  /**
   * the host calls not answered yet, each settling (never rejecting) once its answer is in: a handler need not await
   * what it starts, and the block waits for these before it ends (run-block.ts, workDone)
   */
  inflight: Set<Promise<void>>;
  /** the call running (-1 between blocks) */
  current: number;
  /** the handler of the call running (of the last call between blocks) */
  handler: string;
  /** the height of the block running, then of the last one */
  height: number;
  /** the height of the last block run: a height seen again means a rewind or a retry */
  lastHeight: number;
  /** the height of the first block whose handlers ran here (undefined before it) */
  firstHandledHeight: number | undefined;
  /** the project bundle's exports */
  handlers: Record<string, unknown>;
}

export const createBlockState = (): BlockState => ({
  pending: [],
  blockMark: 0,
  sent: 0,
  createdDataSource: false,
  inflight: new Set(),
  current: -1,
  handler: '',
  height: 0,
  lastHeight: -1,
  firstHandledHeight: undefined,
  handlers: {},
});

/**
 * Awaited host calls, each carrying the writes buffered before it (so the host applies them first)
 * and bounded in size; `callNames` names a family's operations in the refusal.
 */
export function createHostCall(state: BlockState, bridge: Pick<Bridge, 'call'>, limits: SandboxLimits, callNames: Readonly<Record<string, string>>) {
  return (op: HostOp, args: unknown[]): Promise<unknown> => {
    // `get` (the hot path) carries an entity name and an id only
    const size = op === 'get' ? 0 : measure(args);
    if (size > limits.callBytes) {
      throw new RangeError(
        `${Object.hasOwn(callNames, op) ? callNames[op] : `a ${op} call`}: its arguments are about ${formatSize(size)}, above the sandbox's limit of ${formatSize(limits.callBytes)} per call`,
      );
    }
    const writes = state.pending;
    state.pending = [];
    state.blockMark = 0;
    const answer = bridge.call(op, args, writes, state.sent);
    // registered before the caller's own await, so the call leaves `inflight` before its caller goes on
    const leave = () => void state.inflight.delete(answered);
    const answered: Promise<void> = answer.then(leave, leave);
    state.inflight.add(answered);
    return answer;
  };
}

/**
 * Ships the writes buffered so far (a completed block's) to the host without waiting (Bridge.send), so the host
 * applies them while the runtime runs the next block; held to the run's end, they were all applied after it, while
 * the runtime waited for its next run.
 */
export function createShipWrites(state: BlockState, bridge: Pick<Bridge, 'send'>) {
  return (): void => {
    if (state.pending.length === 0) return;
    const writes = state.pending;
    state.pending = [];
    state.blockMark = 0;
    bridge.send(state.sent++, writes);
  };
}

/** Buffers a store write, tagged with the call that made it. */
export const createWriteQueue =
  (state: BlockState) =>
  (write: Write): void => {
    state.pending.push([state.current, ...write] as WriteOp);
  };
