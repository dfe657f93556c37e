import type { DemoChain, Say } from '../../../devchain/demo/demo-chain.ts';
import type { LoadedProject } from '../../../infra/project/load-project.ts';

/**
 * A chain family as the `idx` program knows it: its starter, its dev chain and its parts of
 * `src/types`. What help text needs is plain data; the rest is loaded only when a command runs,
 * so that `idx --help` loads no family's code.
 */
export interface CliFamily {
  /** the family as help text names it */
  readonly title: string;
  readonly starter: Starter;
  readonly devChain: DevChainInfo;
  /** the family's parts of `src/types`, when it has any */
  readonly codegen?: () => Promise<FamilyCodegen>;
}

/** The starter `idx init --network <family>` copies. */
export interface Starter {
  /** its folder under examples/ */
  readonly folder: string;
  /** the name it uses for itself, replaced by the new project's */
  readonly name: string;
  /** what it is, for `idx init --help` */
  readonly about: string;
  /** the next steps it needs before the dev chain, each with its comment */
  readonly setup: readonly string[];
}

/** The family's dev chain as help text gives it; `load` brings its code. */
export interface DevChainInfo {
  /** the port its starter's manifest names */
  readonly port: number;
  /** the program that runs it */
  readonly tool: string;
  /** what it holds, for `idx dev-chain --help` */
  readonly about: string;
  load(): Promise<DevChain>;
}

/** Where a dev chain listens, and the project it is for. */
export interface DevChainPlace {
  host: string;
  port: number;
  /** the project's folder, when there is a project */
  project?: string;
}

/** A family's local chain for `idx dev-chain`, with what its starter indexes on it. */
export interface DevChain {
  /** the chain's id, as its starter's network.chainId gives it */
  readonly chainId: string;
  /** what each new block holds */
  readonly what: string;
  /** what the user should know about a project of this family on this chain */
  notes(project: LoadedProject): string[];
  start(say: Say, place: DevChainPlace): Promise<DemoChain>;
}

/** What a family's codegen is given. */
export interface FamilyCodegenInput {
  projects: readonly LoadedProject[];
  /** whether the projects are the chains of a multichain project (messages then name each chain's manifest) */
  multichain: boolean;
  /** the names the generated code uses unqualified: a generated type may not take one */
  globals: ReadonlySet<string>;
}

/** A family's part of `src/types`, written for every project. */
export interface FamilyCodegen {
  /** the files and folders of src/types it writes, removed first so that nothing stale is left */
  readonly entries: readonly string[];
  /** names its generated code uses unqualified (a schema type of one of these names would shadow it) */
  readonly globals: readonly string[];
  /** the module, as `src/types/models/` imports it, of its runtime types file when that holds the store types models use */
  readonly storeTypes?: string;
  render(input: FamilyCodegenInput): Promise<Map<string, string>>;
  /** what it wrote, for codegen's closing line */
  summary(files: readonly string[]): string;
}
