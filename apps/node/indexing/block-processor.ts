import type { ChainFamily, FetchedBlocks } from '../../../domain/chains/chain-family.ts';
import type { HeightRange } from '../../../domain/blocks/next-range.ts';
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
  runBlock(height: number, content: Content, calls: readonly Call[]): Promise<{ created: readonly CreatedDataSource[] }>;
}

export interface BlockProcessorDeps<Compiled, Plan, Fetched extends FetchedBlocks, Content, Call> {
  family: ChainFamily<Compiled, Plan, Fetched, Content, Call>;
  dataSources: readonly DataSource[];
  templates: readonly Template[];
  runner: BlockRunner<Content, Call>;
  /** fetches the block again for data sources created in it */
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

  async function processWith(pool: readonly Compiled[], fetched: Fetched, height: number): Promise<boolean> {
    const block = family.blockCalls(pool, fetched, height);
    if (block === undefined) return false;
    const { created } = await deps.runner.runBlock(height, block.content, block.calls);
    deps.status.eventsProcessed += block.calls.length;
    if (created.length === 0) return false;

    const fresh = created.map((c) => ({ templateName: c.template, startBlock: height, args: c.args }));
    const before = sources.length;
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
    // The new data sources apply from this very block: run their handlers on it too.
    const added = sources.slice(before);
    const extra = await deps.fetch(family.plan(added, height, height), { from: height, to: height });
    const own = fetched.blocks.get(height);
    if (!extra.blocks.has(height) && own !== undefined) extra.blocks.set(height, own);
    await processWith(added, extra, height);
    return true;
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
    process: async (fetched: Fetched, height: number) => (deps.bypassed?.(height) ? false : processWith(sources, fetched, height)),

    /** What a flush commits: the data sources created since the last one. */
    metadata(): Record<string, unknown> {
      if (!changed) return {};
      changed = false;
      return { dynamicDatasources: dynamic };
    },
  };
}
