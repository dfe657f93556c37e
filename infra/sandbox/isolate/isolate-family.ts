import type { BlockPayload, CustomSourcesInstall, HostOp, WireCall } from './wire.ts';

/** A mapping's handler, as the project's bundle exports it. */
export type Handler = (arg: unknown) => unknown;

/** What the runtime gives a family's isolate side when it installs. */
export interface IsolateFamilyContext {
  /** an awaited host operation (the store writes buffered so far go first) */
  call(op: HostOp, args: unknown[]): Promise<unknown>;
  /** an awaited host operation answered synchronously; undefined where the sandbox cannot wait (node:vm) */
  callBlocking: ((op: HostOp, args: unknown[]) => unknown) | undefined;
  chainId: string;
  /** the height of the block running */
  height(): number;
  /**
   * the height of the first block whose handlers ran in this sandbox (the block running before it): SubQuery's
   * sandbox loads a mapping at its first handler call, so what the bundle's top level keeps of that call's `api`
   * reads that block for good
   */
  loadHeight(): number;
  /** the project's chain types' value (evaluated on first use; a failure names the file) */
  chainTypes(): unknown;
  /** the family's library bundle's exports, when it has one (infra/sandbox/families/<family>/) */
  library: unknown;
}

/** The handler arguments of one block, made as its calls ask for them. */
export interface BlockArguments {
  /** call `call`'s handler argument, as it begins */
  argOf(call: number, wire: WireCall): unknown;
  /** runs the handler with its argument when the family has more to it (custom data sources); else the handler is called with it */
  invoke?(wire: WireCall, arg: unknown, handler: Handler): Promise<unknown> | unknown;
  /** after the block's last call completed */
  done?(): void;
}

/** A family's side of one isolate (or node:vm context). */
export interface IsolateFamily {
  /** the `api` global as the bundle loads */
  readonly api: unknown;
  /**
   * the `api` global of a block, when the family makes one per block as SubQuery freezes one into its sandbox per
   * block: an `api` kept from an earlier block (a contract made at the bundle's top level) still reads that block
   */
  apiAt?(height: number): unknown;
  /** `unsafeApi` (--unsafe) */
  unsafeApi(): unknown;
  /** the handler arguments of a block (a rejection fails the block at its first call) */
  enterBlock(payload: BlockPayload): BlockArguments | Promise<BlockArguments>;
  /** readies what a block of `key` (a runtime version) needs before one arrives */
  prepare?(key: number): Promise<void>;
  /** custom data sources' processors, loaded with the project: what they are, and what they refused of the manifest */
  loadCustom?(
    custom: CustomSourcesInstall,
    require: (name: string) => unknown,
    api: () => unknown,
  ): { processors: Record<string, unknown>; customProblems: { path: string; message: string }[] };
}

/** A family's isolate side, as the isolate's registry (isolate/families/registry.ts) holds it. */
export interface IsolateFamilyDefinition {
  install(context: IsolateFamilyContext): IsolateFamily;
  /** how the limit on a call's arguments names its host operations, where not `a <op> call` */
  callNames?: Readonly<Record<string, string>>;
}
