import type { BlockRunner, CreatedDataSource } from './block-processor.ts';

/**
 * The block the sandbox is running, as the mapping host sees it: the height its writes are
 * stamped with and the data sources it creates. `runner` hands both to the indexer through
 * `runBlock`'s result, so nothing else shares them.
 */
export function createBlockScope() {
  let height = 0;
  let created: CreatedDataSource[] = [];
  return {
    height: () => height,
    createDataSource: (template: string, args: Record<string, unknown>) => void created.push({ template, args }),
    runner<Content, Call>(run: (content: Content, calls: readonly Call[]) => Promise<void>): BlockRunner<Content, Call> {
      return {
        async runBlock(h, content, calls) {
          height = h;
          created = [];
          await run(content, calls);
          const out = created;
          created = [];
          return { created: out };
        },
      };
    },
  };
}
