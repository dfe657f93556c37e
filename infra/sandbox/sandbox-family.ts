import type { ChainFamilyName } from '../../domain/chains/families.ts';
import type { MappingHost } from '../../domain/mapping/mapping-host.ts';
import type { BlockPayload } from './isolate/wire.ts';
import type { RunItem, RunResult } from './run-in-runtime.ts';

/**
 * A chain family's host side of the sandbox (its isolate side is isolate/families/<family>/): the
 * library bundle it loads into the isolate, the host operations it answers, and the methods a
 * sandbox of the family adds (running its blocks). One per family in families/registry.ts.
 */
export interface SandboxFamily<Methods extends object = object> {
  /** the family's name, as the isolate's registry knows it (isolate/families/registry.ts) */
  readonly name: ChainFamilyName;
  /** a library bundled on its own and loaded before the runtime installs (its exports reach the family's isolate side) */
  readonly library?: SandboxLibrary;
  /** per sandbox: what the family adds to it */
  create(host: MappingHost, core: SandboxCore): FamilyParts<Methods>;
}

export interface FamilyParts<Methods> {
  /** the host operations the family's isolate side calls, beside the store's and `request` */
  ops: Readonly<Record<string, HostOperation>>;
  /** the sandbox's methods for this family's blocks */
  methods: Methods;
}

/** A host operation: its arguments as they crossed; its answer crosses back as a copy. */
export type HostOperation = (args: unknown[]) => Promise<unknown>;

/** What the sandbox gives its family: running blocks' payloads, and readying the runtime. */
export interface SandboxCore {
  /**
   * Runs one block's payload, made by `makePayload` (`fresh`: the last block did not complete),
   * bounded by --timeout, its failures named for the handler; `running` is the family's view of the
   * block, which `running()` answers while it runs.
   */
  run(height: number, calls: readonly { handler: string }[], makePayload: (fresh: boolean) => BlockPayload, running?: unknown): Promise<BlockRan>;
  /** runs blocks one after another in one entry into the runtime; how many completed, and why the next did not (run-in-runtime.ts) */
  runMany(items: readonly RunItem[], budgetMs?: number): Promise<RunResult>;
  /** the `running` of the block running, if any */
  running(): unknown;
  /** readies the runtime inside for blocks of `key` (a runtime version) while blocks may run; `method` names the caller in a refusal */
  prepare(key: number, method: string): Promise<void>;
}

/**
 * A library bundle: built once per machine like the runtime's (create-prelude-cache.ts), in a child
 * process (bundle-prelude.ts), which imports `recipe` only there.
 */
export interface SandboxLibrary {
  /** names its cached file and stack frames (`idx:sandbox-<name>.js`) */
  readonly name: string;
  /** a hash of everything the bundle is made of; `ext` is `.ts` from the sources, `.js` once compiled */
  hash(ext: string): Promise<string>;
  /** the bundle's rollup input options */
  recipe(ext: string): Promise<object>;
}

/** How a block's run ended: `ran`, it stopped after that many calls, the last of which created data sources. */
export interface BlockRan {
  ran?: number;
}
