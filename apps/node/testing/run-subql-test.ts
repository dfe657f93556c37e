import { handlerDataSources } from '../../../domain/testing/handler-data-sources.ts';
import type { SubqlTestCase } from '../../../domain/testing/subql-test.ts';
import { expectedChecks, testFailed, type TestOutcome } from '../../../domain/testing/test-outcome.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { LoadedProject } from '../../../infra/project/load-project.ts';
import type { ProjectFiles } from '../../../infra/project/read-project-files.ts';
import type { AnyNodeChain } from '../families/node-chain.ts';
import type { NodeOptions } from '../start-up/node-options.ts';
import { startMapping } from '../start-up/start-mapping.ts';
import { openTestStore } from './test-store.ts';

export interface TestRunContext {
  options: NodeOptions;
  project: LoadedProject;
  files: ProjectFiles;
  chain: AnyNodeChain;
  chainId: string;
  /** the throwaway schema */
  schema: string;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
}

/**
 * One `subqlTest`, as SubQuery's test runner does it: a fresh store and sandbox, the block at the
 * test's height fetched from the project's endpoint (or its recording), the dependent entities stored,
 * every data source naming the handler run on what the block holds for it (with all their handlers,
 * as SubQuery's node runs them), then each expected
 * entity compared with the store's. Everything it opened is closed, the schema dropped.
 */
export async function runSubqlTest(ctx: TestRunContext, test: SubqlTestCase): Promise<TestOutcome> {
  const height = test.blockHeight;
  const failed = (kind: 'fetch' | 'runtime', err: unknown) => testFailed(test, kind, err);
  const opened = await openTestStore({ options: ctx.options, model: ctx.files.model, schema: ctx.schema, env: ctx.env, logger: ctx.logger });
  try {
    const mapping = await startMapping({ ...ctx, store: opened.store });
    try {
      let block;
      try {
        const family = ctx.chain.family(ctx.files, mapping.processors);
        const sources = handlerDataSources(ctx.project.manifest.dataSources, test.handler).map((ds, i) => family.compile(ds, i));
        const fetched = await fetchOne(ctx, family.plan(sources, height, height), height);
        block = family.blockCalls(sources, fetched, height);
      } catch (err) {
        return failed((err as { code?: string }).code === 'TEST_HANDLER_NOT_FOUND' ? 'runtime' : 'fetch', err);
      }
      try {
        for (const e of test.dependentEntities) mapping.seed(e.entity, e.id, e.data, height);
        if (block === undefined)
          ctx.logger.child('test').warn(`Test: ${test.name}: block ${height} holds nothing for the data sources of ${test.handler}; no handler ran`);
        else await mapping.runner.runBlock(height, block.content, block.calls);
        return { name: test.name, checks: await expectedChecks(test.expectedEntities, (entity, id) => mapping.cache.get(entity, id)) };
      } catch (err) {
        return failed('runtime', err);
      }
    } finally {
      mapping.dispose();
    }
  } finally {
    await opened.close();
  }
}

/** The block at `height` as the family plans it for the tested handler's data sources. */
async function fetchOne(ctx: TestRunContext, plan: unknown, height: number) {
  const fetcher = ctx.chain.fetcher([], ctx.logger, () => undefined);
  try {
    return await fetcher.fetch(plan, { from: height, to: height }, 0);
  } finally {
    await fetcher.close();
  }
}
