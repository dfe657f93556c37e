import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { MappingFieldFilter, MappingHost, MappingLogLevel, MappingQueryOptions } from '../../domain/mapping/mapping-host.ts';
import type { HostOp, HostSyncOp, WriteOp } from './isolate/wire.ts';
import type { HostOperation } from './sandbox-family.ts';

/**
 * The host side of the sandbox's calls: the mapping's store writes in order, its reads, chain
 * reads and hashing, dispatched to the `MappingHost` port and to the operations the sandbox's
 * family adds (`familyOps`). Shared by the isolate and the --unsafe node:vm runtimes.
 */
export interface HostBridge {
  call(op: HostOp, args: unknown[], writes: WriteOp[]): Promise<unknown>;
  callSync(op: HostSyncOp, args: unknown[]): unknown;
  log(level: string, message: string, fields: Record<string, unknown> | undefined): void;
  /** applies writes in order; a failing write throws a `WriteFailed` naming the operation and its call */
  applyWrites(writes: readonly WriteOp[]): Promise<void>;
}

export class WriteFailed extends Error {
  constructor(
    readonly call: number,
    /** the block of the run that wrote it */
    readonly block: number,
    message: string,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'WriteFailed';
  }
}

const LEVELS = new Set<MappingLogLevel>(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);

/**
 * `enterBlock`: a run's write stream reached block `index` of the run (its marker): the writes and calls after it are
 * that block's (run-in-runtime.ts stamps them with its height).
 */
export function createHostBridge(
  host: MappingHost,
  familyOps: Readonly<Record<string, HostOperation>> = {},
  enterBlock: (index: number) => void = () => {},
): HostBridge {
  const store = host.store;
  let block = 0;
  const applyWrites = async (writes: readonly WriteOp[]): Promise<void> => {
    for (const w of writes) {
      try {
        switch (w[1]) {
          case 'block':
            block = w[2];
            enterBlock(block);
            break;
          case 'set':
            await store.set(w[2], w[3], w[4]);
            break;
          case 'bulkCreate':
            await store.bulkCreate(w[2], w[3]);
            break;
          case 'bulkUpdate':
            await store.bulkUpdate(w[2], w[3], w[4]);
            break;
          case 'remove':
            await store.remove(w[2], w[3]);
            break;
          case 'bulkRemove':
            await store.bulkRemove(w[2], w[3]);
            break;
        }
      } catch (err) {
        const target = w[1] === 'set' || w[1] === 'remove' ? `("${w[2]}", "${w[3]}")` : `("${w[2]}", …)`;
        throw new WriteFailed(w[0], block, `store.${w[1]}${target} failed: ${(err as Error)?.message ?? String(err)}`, { cause: err });
      }
    }
  };

  return {
    applyWrites,
    async call(op, args, writes) {
      if (writes.length > 0) await applyWrites(writes);
      switch (op) {
        case 'get':
          return store.get(args[0] as string, args[1] as string);
        case 'getByField':
          return store.getByField(args[0] as string, args[1] as string, args[2], args[3] as MappingQueryOptions);
        case 'getByFields':
          return store.getByFields(args[0] as string, args[1] as MappingFieldFilter[], args[2] as MappingQueryOptions);
        case 'getOneByField':
          return store.getOneByField(args[0] as string, args[1] as string, args[2]);
        case 'request':
          return host.request(args[0] as string, args[1] as unknown[]);
        case 'createDynamicDatasource':
          return host.createDynamicDatasource(args[0] as string, args[1] as Record<string, unknown>);
        default:
          if (!Object.hasOwn(familyOps, op)) throw new Error(`unknown sandbox operation ${String(op)}`);
          return familyOps[op]!(args);
      }
    },
    callSync: hostSyncCall,
    log(level, message, fields) {
      host.logger(LEVELS.has(level as MappingLogLevel) ? (level as MappingLogLevel) : 'info', message, fields);
    },
  };
}

/** The sandbox's synchronous host operations: its `crypto` module's hashing and, under --unsafe, randomness. */
export function hostSyncCall(op: HostSyncOp, args: unknown[]): unknown {
  switch (op) {
    case 'hash': {
      const [algorithm, key, data] = args as [string, Uint8Array | null, Uint8Array];
      const h = key === null ? createHash(algorithm) : createHmac(algorithm, key);
      return new Uint8Array(h.update(data).digest());
    }
    case 'randomBytes': {
      const size = args[0];
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size > 65536)
        throw new RangeError(`randomBytes: size must be an integer from 0 to 65536, got ${String(size)}`);
      return new Uint8Array(randomBytes(size));
    }
    case 'randomUUID':
      return randomUUID();
    default:
      throw new Error(`unknown sandbox operation ${String(op)}`);
  }
}
