import { oneAtATime, type BlockRunner, type CreatedDataSource, type RunBlocksResult } from './block-processor.ts';

/** Runs blocks in one entry into the sandbox; `enter` of each block is told when its writes and host calls begin. */
type RunMany<Content, Call> = (
  blocks: readonly { content: Content; calls: readonly Call[]; enter: () => void }[],
  budgetMs?: number,
) => Promise<{ completed: number; error?: unknown; ran?: number }>;

/**
 * The block the sandbox is running, as the mapping host sees it: the height its writes are
 * stamped with and the data sources it creates. `runner` hands both to the indexer through
 * `runBlock`'s result, so nothing else shares them. In a run of blocks, the sandbox says when each
 * block's writes begin (`enter`), and the height follows.
 */
export function createBlockScope() {
  let height = 0;
  let created: CreatedDataSource[] = [];
  return {
    height: () => height,
    createDataSource: (template: string, args: Record<string, unknown>) => void created.push({ template, args }),
    runner<Content, Call>(
      run: (content: Content, calls: readonly Call[]) => Promise<{ ran?: number }>,
      runMany?: RunMany<Content, Call>,
    ): BlockRunner<Content, Call> {
      const runBlock = async (h: number, content: Content, calls: readonly Call[]) => {
        height = h;
        created = [];
        const { ran } = await run(content, calls);
        const out = created;
        created = [];
        return ran === undefined ? { created: out } : { created: out, ran };
      };
      return {
        runBlock,
        async runBlocks(blocks, budgetMs): Promise<RunBlocksResult> {
          if (runMany === undefined) return oneAtATime(blocks, runBlock, budgetMs);
          const made: CreatedDataSource[][] = blocks.map(() => []);
          const result = await runMany(
            blocks.map((b, i) => ({
              content: b.content,
              calls: b.calls,
              enter: () => {
                height = b.height;
                created = made[i]!;
              },
            })),
            budgetMs,
          );
          created = [];
          return { ...result, created: made.slice(0, result.completed) };
        },
      };
    },
  };
}
