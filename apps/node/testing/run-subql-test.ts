import { entityDifferences } from '../../../domain/testing/entity-differences.ts';
import { handlerDataSources } from '../../../domain/testing/handler-data-sources.ts';
import type { SubqlTestCase } from '../../../domain/testing/subql-test.ts';
import type { EntityCheck, TestOutcome } from '../../../domain/testing/test-outcome.ts';
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

/** What stopped a test, as its report shows it: the mapping's stack when there is one. */
const described = (err: unknown): string => {
  const e = err as { message?: string; mappingStack?: string; stack?: string };
  return e?.mappingStack ?? e?.message ?? String(err);
};

/**
 * One `subqlTest`, as SubQuery's test runner does it: a fresh store and sandbox, the block at the
 * test's height fetched from the project's endpoint (or its recording), the dependent entities stored,
 * every data source naming the handler run on what the block holds for it (with all their handlers,
 * as SubQuery's node runs them), then each expected
 * entity compared with the store's. Everything it opened is closed, the schema dropped.
 */
export async function runSubqlTest(ctx: TestRunContext, test: SubqlTestCase): Promise<TestOutcome> {
  const height = test.blockHeight;
  const failed = (kind: 'fetch' | 'runtime', err: unknown): TestOutcome => ({
    name: test.name,
    error: { kind, message: described(err) },
    expectedCount: test.expectedEntities.length,
  });
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
        for (const e of test.dependentEntities) mapping.cache.set(e.entity, e.id, e.data, height);
        if (block === undefined)
          ctx.logger.child('test').warn(`Test: ${test.name}: block ${height} holds nothing for the data sources of ${test.handler}; no handler ran`);
        else await mapping.runner.runBlock(height, block.content, block.calls);
        const checks: EntityCheck[] = [];
        for (const e of test.expectedEntities)
          checks.push({ entity: e.entity, id: e.id, differences: entityDifferences(e, await mapping.cache.get(e.entity, e.id)) });
        return { name: test.name, checks };
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
