import type { ChainFamily, FetchedBlocks } from '../../../domain/chains/chain-family.ts';
import type { HeightRange } from '../../../domain/blocks/next-range.ts';
import { compareCallOrder, type CallOrder } from '../../../domain/chains/call-order.ts';
import { instantiateTemplate, type DynamicDataSourceRecord } from '../../../domain/project/dynamic-data-sources.ts';
import type { DataSource, Template } from '../../../domain/project/project-model.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { IndexerStatus } from './indexer-status.ts';

/** A `createDynamicDatasource` call of a mapping. */
export interface CreatedDataSource {
  template: string;
  args: Record<string, unknown>;
}

/** Runs one block's handler calls (the sandbox), and says which data sources they created. */
export interface BlockRunner<Content, Call> {
  /** `ran`: the block stopped after that many calls, the last of which created data sources (the rest were not run) */
  runBlock(height: number, content: Content, calls: readonly Call[]): Promise<{ created: readonly CreatedDataSource[]; ran?: number }>;
  /**
   * runs blocks in order in one entry into the sandbox, until one fails or creates data sources, or until the block
   * running when `budgetMs` is spent (without it: oneAtATime)
   */
  runBlocks?(blocks: readonly { height: number; content: Content; calls: readonly Call[] }[], budgetMs?: number): Promise<RunBlocksResult>;
}

/**
 * A run of blocks: the first `completed` ran (their writes are in the store cache, at their heights), with the data
 * sources each created; `error` is why the next did not. Only the last completed block can have created any.
 */
export interface RunBlocksResult {
  completed: number;
  error?: unknown;
  created: readonly (readonly CreatedDataSource[])[];
  /** the last completed block stopped after that many of its calls, the last of which created data sources */
  ran?: number;
}

/** At most this many blocks with handler calls run in one entry into the sandbox: a stop waits for at most one run. */
export const RUN_BLOCKS = 50;

/** What `processRun` did: every block up to `through` is processed; `created`, the last one created data sources; `error`, why the next failed. */
export interface ProcessedRun {
  through: number;
  created: boolean;
  error?: unknown;
}

export interface BlockProcessorDeps<Compiled, Plan, Fetched extends FetchedBlocks, Content, Call> {
  family: ChainFamily<Compiled, Plan, Fetched, Content, Call>;
  dataSources: readonly DataSource[];
  templates: readonly Template[];
  runner: BlockRunner<Content, Call>;
  /** fetches the block again for data sources created in it (not for a family whose blocks are fetched whole) */
  fetch: (plan: Plan, range: HeightRange) => Promise<Fetched>;
  status: IndexerStatus;
  logger: Logger;
  /** `network.bypassBlocks`: heights whose handlers do not run */
  bypassed?: (height: number) => boolean;
}

/**
 * A block → its handler calls (the family's matching), run in the sandbox. Owns the data sources:
 * the manifest's and those created from templates (`_metadata.dynamicDatasources`), which apply
 * from the block that created them on.
 */
export function createBlockProcessor<Compiled, Plan, Fetched extends FetchedBlocks, Content, Call>(
  deps: BlockProcessorDeps<Compiled, Plan, Fetched, Content, Call>,
) {
  const { family } = deps;
  const log = deps.logger.child('indexer');
  let dynamic: DynamicDataSourceRecord[] = [];
  let sources: Compiled[] = [];
  let changed = false;

  const rebuild = () => {
    sources = [...deps.dataSources, ...dynamic.map((d) => instantiateTemplate(deps.templates, d))].map((ds, i) => family.compile(ds, i));
  };

  /**
   * Runs a block's calls, those after `after` only when given (`extra`: the block fetched again for data sources
   * created in it). True when it created data sources (the rest of the range must be fetched again).
   */
  async function processBlock(fetched: Fetched, height: number, extra?: Fetched, after?: CallOrder): Promise<boolean> {
    const block = family.blockCalls(sources, fetched, height, extra);
    if (block === undefined) return false;
    const { calls, order } = after === undefined ? block : callsAfter(block, after);
    if (calls.length === 0) return false;
    const { created, ran } = await deps.runner.runBlock(height, block.content, calls);
    deps.status.eventsProcessed += ran ?? calls.length;
    if (created.length === 0 && ran === undefined) return false;
    return continueBlock(created, fetched, height, extra, order[(ran ?? calls.length) - 1]!);
  }

  /**
   * A block whose call created data sources (or stopped to say so): they are kept, and the block goes on with the
   * calls after that one, theirs among them, as SubQuery's node appends a new data source to those it is iterating,
   * so it sees what follows in the block and nothing before.
   */
  async function continueBlock(created: readonly CreatedDataSource[], fetched: Fetched, height: number, extra: Fetched | undefined, after: CallOrder) {
    let again = extra;
    if (created.length > 0) {
      const added = adoptCreated(created, height);
      if (family.wholeBlocks !== true) again = await deps.fetch(family.plan(added, height, height), { from: height, to: height });
    }
    return (await processBlock(fetched, height, again, after)) || created.length > 0;
  }

  /** Data sources a block created: kept from that block on; returns those of the block's so far, to fetch it for. */
  function adoptCreated(created: readonly CreatedDataSource[], height: number): Compiled[] {
    const fresh = created.map((c) => ({ templateName: c.template, startBlock: height, args: c.args }));
    dynamic = [...dynamic, ...fresh];
    changed = true;
    rebuild();
    const templates = fresh.map((f) => f.templateName);
    log.info(
      `created ${fresh.length} data source${fresh.length === 1 ? '' : 's'} from template${fresh.length === 1 ? '' : 's'} ${templates.join(', ')} at block ${height}`,
      {
        event: 'data-sources-created',
        height,
        templates,
      },
    );
    const ofBlock = new Set(dynamic.flatMap((d, i) => (d.startBlock === height ? [deps.dataSources.length + i] : [])));
    return sources.filter((_s, i) => ofBlock.has(i));
  }

  return {
    /** the data sources created by an earlier run (`_metadata.dynamicDatasources`) */
    load(stored: unknown) {
      dynamic = Array.isArray(stored) ? (stored as DynamicDataSourceRecord[]) : [];
      changed = false;
      rebuild();
    },

    /** What to fetch for `[from, to]` so that every handler of every data source finds its data. */
    plan: (from: number, to: number) => family.plan(sources, from, to),

    /** Runs the handlers of one block; true when it created data sources (the rest of the range must be fetched again). */
    process: async (fetched: Fetched, height: number) => (deps.bypassed?.(height) ? false : processBlock(fetched, height)),

    /**
     * Runs the handlers of the blocks from `from` to at most `to` in one entry into the sandbox (at most RUN_BLOCKS
     * blocks with calls), stopping after a block that created data sources (the rest of the range must be fetched
     * again) or at one that failed.
     */
    async processRun(fetched: Fetched, from: number, to: number, budgetMs?: number): Promise<ProcessedRun> {
      const blocks: { height: number; content: Content; calls: readonly Call[]; order: readonly CallOrder[] }[] = [];
      let h = from;
      for (; h <= to && blocks.length < RUN_BLOCKS; h++) {
        if (deps.bypassed?.(h)) continue;
        const block = family.blockCalls(sources, fetched, h);
        if (block !== undefined && block.calls.length > 0) blocks.push({ height: h, ...block });
      }
      const through = h - 1;
      if (blocks.length === 0) return { through, created: false };
      const run = await (deps.runner.runBlocks?.(blocks, budgetMs) ?? oneAtATime(blocks, deps.runner.runBlock, budgetMs));
      for (let i = 0; i < run.completed; i++) deps.status.eventsProcessed += blocks[i]!.calls.length;
      // a run that ended early (a failure, its budget spent) did the blocks up to the next one with calls
      const done = run.completed === blocks.length ? through : blocks[run.completed]!.height - 1;
      if (run.error !== undefined) return { through: done, created: false, error: run.error };
      const last = blocks[run.completed - 1]!;
      const created = run.created[run.completed - 1] ?? [];
      if (created.length === 0 && run.ran === undefined) return { through: done, created: false };
      const made = await continueBlock(created, fetched, last.height, undefined, last.order[(run.ran ?? last.calls.length) - 1]!);
      return made ? { through: last.height, created: true } : { through: done, created: false };
    },

    /** What a flush commits: the data sources created since the last one. */
    metadata(): Record<string, unknown> {
      if (!changed) return {};
      changed = false;
      return { dynamicDatasources: dynamic };
    },
  };
}

/** A run of blocks for a sandbox that runs one block at a time: it stops at a failure, or after a block that created data sources or spent the budget. */
export async function oneAtATime<Content, Call>(
  blocks: readonly { height: number; content: Content; calls: readonly Call[] }[],
  runBlock: BlockRunner<Content, Call>['runBlock'],
  budgetMs = Infinity,
): Promise<RunBlocksResult> {
  const made: (readonly CreatedDataSource[])[] = [];
  const started = Date.now();
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    let ran: number | undefined;
    try {
      ({ created: made[i], ran } = await runBlock(b.height, b.content, b.calls));
    } catch (error) {
      return { completed: i, error, created: made.slice(0, i) };
    }
    if (ran !== undefined) return { completed: i + 1, created: made.slice(0, i + 1), ran };
    if (made[i]!.length > 0 || Date.now() - started >= budgetMs) return { completed: i + 1, created: made.slice(0, i + 1) };
  }
  return { completed: blocks.length, created: made };
}

/** A block's calls after `after` in the block's order (call-order.ts), with their places. */
export function callsAfter<Call>(block: { calls: readonly Call[]; order: readonly CallOrder[] }, after: CallOrder): { calls: Call[]; order: CallOrder[] } {
  const keep = block.order.flatMap((o, i) => (compareCallOrder(o, after) > 0 ? [i] : []));
  return { calls: keep.map((i) => block.calls[i]!), order: keep.map((i) => block.order[i]!) };
}
