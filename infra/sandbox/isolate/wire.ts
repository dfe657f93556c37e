import type { ChainFamilyName } from '../../../domain/chains/families.ts';
import type { TestCase } from '../../../domain/testing/range-test.ts';
import type { SandboxLimits } from './limits.ts';

/**
 * What crosses the isolate boundary, in both directions: plain data only (structured clone), so
 * the host can send it with one ExternalCopy per block and the isolate rebuilds the objects
 * mappings expect (BigNumber, Result, cross-linked log/transaction/block).
 */

/** A decoded ABI value: bigint becomes a BigNumber inside, `$r` a Result, `$i` an indexed-topic hash. */
export type WireValue = bigint | number | string | boolean | null | WireValue[] | WireResult | WireIndexed;
export interface WireResult {
  $r: WireValue[];
  /** per position, the key ethers also gives it (domain/mapping/ethers-result-names.ts), or null */
  n: (string | null)[];
  /**
   * 1 for an event's arguments with an indexed string, bytes, array or tuple: ethers'
   * LogDescription then copies them (rebuild-args.ts says how), and SubQuery mappings see the copy
   */
  c?: 1;
}
export interface WireIndexed {
  $i: string;
}

/**
 * A handler call as it crosses: its handler, its kind and index (what each kind means is the
 * family's: isolate/families/<family>/), and what else the family hands with it.
 */
export type WireCall = [handler: string, kind: number, index: number, ...more: unknown[]];

export type WireRecord = Record<string, unknown>;

/**
 * One block's payload; a family's payload adds its own fields (isolate/families/<family>/…-wire.ts).
 * `block`'s `hash` and `timestamp` seed the block's deterministic randomness.
 */
export interface BlockPayload {
  height: number;
  /** the previous block did not complete (its writes were dropped): forget what was cached */
  fresh: boolean;
  /** the host wrote entities the sandbox did not see (test set-up): no id is known absent any more */
  forgetKnownIds?: true;
  block: WireRecord;
  calls: WireCall[];
}

/**
 * One buffered store write, tagged with the index of the call that made it; or, in a run of blocks, the marker
 * where block `index`'s writes begin (the writes after it are that block's, at its height, until the next marker).
 */
export type WriteOp =
  | [call: number, op: 'block', index: number]
  | [call: number, op: 'set', entity: string, id: string, data: WireRecord]
  | [call: number, op: 'bulkCreate', entity: string, records: WireRecord[]]
  | [call: number, op: 'bulkUpdate', entity: string, records: WireRecord[], fields: string[] | undefined]
  | [call: number, op: 'remove', entity: string, id: string]
  | [call: number, op: 'bulkRemove', entity: string, ids: string[]];

export interface ThrownError {
  name: string;
  message: string;
  stack?: string;
}

/** a handler read (1) or wrote (2) an entity type for the first time (isolate/access-log.ts) */
export type AccessEntry = [handler: string, entity: string, kind: number];

/** One block's run inside: its writes stay in the run's write stream (block-state.ts). */
/** `ran`: the block stopped after that many calls, the last of which created data sources (the rest were made without them) */
export type BlockOutcome = { ok: true; ran?: number } | { ok: false; call: number; error: ThrownError };

/**
 * What a run of blocks (one entry into the sandbox) gave: how many of its payloads completed, the writes
 * not yet sent (in order, each block's after its marker), and why it stopped early: block `completed` failed,
 * or block `completed - 1` created data sources (the later payloads were made without them).
 */
export interface RunOutcome {
  completed: number;
  /** the writes not shipped (Bridge.send): the last block's, and those of a block the run stopped at */
  writes: WriteOp[];
  /** how many batches of writes the runtime has shipped so far (Bridge.send): the host applies them before `writes` */
  sent: number;
  access?: AccessEntry[];
  /** block `completed` failed at `call`; `abandon`: a timer callback failed it while a handler still awaits (drop the runtime) */
  failed?: { call: number; error: ThrownError; abandon?: true };
  /** block `completed - 1` created data sources */
  created?: true;
  /** and stopped after its first `ran` calls, the last of which created them */
  ran?: number;
}

export type LoadOutcome =
  | {
      ok: true;
      handlers: string[];
      /** the custom data source processors loaded, by file (their shape is their family's) */
      processors?: Record<string, unknown>;
      /** what the processors refused of the manifest's custom data sources */
      customProblems?: { path: string; message: string }[];
      /** a test bundle's `subqlTest`s and `subqlRangeTest`s, as registered while it loaded */
      tests?: TestCase[];
    }
  | { ok: false; error: ThrownError };

/**
 * Custom data sources (SubQuery's data source processors): their processors' code and assets by
 * file, and the manifest's sources to check (each as its family's processors read it).
 */
export interface CustomSourcesInstall<DataSource = unknown> {
  processors: Record<string, string>;
  assets: Record<string, string>;
  sources: { path: string; ds: DataSource }[];
}

/**
 * Awaited host operations; `writes` are the store writes buffered since the last crossing, applied
 * first. Every family's sandbox has the store's (`get`, …), `request` and `createDynamicDatasource`;
 * a family adds its own (infra/sandbox/families/<family>/).
 */
export type HostOp = string;
/** `chainTypesModule`: only while the node first loads a JavaScript chain-types file (infra/sandbox/evaluate-chain-types.ts) */
export type HostSyncOp = 'hash' | 'randomBytes' | 'randomUUID' | 'chainTypesModule';

export interface Bridge {
  /** `sent`: how many batches `send` shipped before this call; the host applies them, then `writes`, then serves it */
  call(op: HostOp, args: unknown[], writes: WriteOp[], sent: number): Promise<unknown>;
  /**
   * Ships a completed block's writes without waiting: the host applies them while the runtime goes on to the next
   * block, rather than all of a run's at its end. `seq` numbers the batches from 0, in the order shipped.
   */
  send(seq: number, writes: WriteOp[]): void;
  callSync(op: HostSyncOp, args: unknown[]): unknown;
  /**
   * An awaited host operation answered synchronously: the isolate's thread waits for the host.
   * Only in an isolate; node:vm (--unsafe) shares the host's thread and cannot wait.
   */
  callBlocking?: (op: HostOp, args: unknown[]) => unknown;
  /** fire and forget: logging */
  log(level: string, message: string, fields: Record<string, unknown> | undefined): void;
}

export interface InstallOptions {
  queryLimit: number;
  /** the lowest level the node prints for the mapping's category; lower lines are dropped inside (default trace) */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** bounds on what crosses to the host (isolate/limits.ts; defaults there) */
  limits?: Partial<SandboxLimits>;
  /** entities the store's read cache keeps; 0 = every `get` asks the host */
  readCacheSize: number;
  /**
   * Entity types whose table held no row when the node started, which only this sandbox writes: the store keeps every
   * id written to them and answers a `get` of another id as absent without asking the host (domain/entities/known-ids.ts)
   */
  freshEntities?: string[];
  chainId: string;
  /** the chain family: what `api` is and what blocks hold (isolate/families/registry.ts) */
  family: ChainFamilyName;
  unsafe: boolean;
  /** custom data sources, for the families that have them */
  custom?: CustomSourcesInstall;
  /** Int32Array[0] = index of the call running now, [1] = of the block in the run (the host reads them when a block times out); [2] ≠ 0: end the run after this block */
  progress: SharedArrayBuffer;
  /** Substrate: the project's chain types (`network.chaintypes`), evaluated inside */
  chainTypes?: ChainTypesSource;
}

/** A module file of JavaScript chain types, as the host read it from the project. */
export interface ChainTypesModule {
  path: string;
  kind: 'js' | 'json';
  text: string;
}

/**
 * The project's chain types as they cross: a JSON or YAML file's value, or a JavaScript file (`entry`)
 * with the modules it requires and how each `require` resolved (`<from>\n<specifier>` → a path in
 * `modules`, or `builtin:<name>`).
 */
export type ChainTypesSource =
  | { file: string; value: unknown }
  | {
      file: string;
      entry: string;
      modules: Record<string, ChainTypesModule>;
      resolutions: Record<string, string>;
      /** while the node first loads them: a module not in the record is asked of the host (`chainTypesModule`) */
      readFromHost?: boolean;
    };

/** JavaScript chain types once evaluated: their value as plain data (the functions it held left out, listed by path) and the modules read. */
export interface LoadedChainTypes {
  value: unknown;
  functions: string[];
  modules: Record<string, ChainTypesModule>;
  resolutions: Record<string, string>;
}

/** Only in --unsafe mode (node:vm): the real `require` and extra globals such as `fetch`. */
export interface UnsafeExtras {
  require: (name: string) => unknown;
  globals: Record<string, unknown>;
}
