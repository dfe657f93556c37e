import type { BlockFilter } from './project-model.ts';

/** A block handler of any family: `modulo` and the `timestamp` cron. */
export function compileBlockHandler(handler: string, filter: BlockFilter | undefined): { kind: 'block'; handler: string; modulo?: number; cron?: string } {
  const out: { kind: 'block'; handler: string; modulo?: number; cron?: string } = { kind: 'block', handler };
  if (filter?.modulo !== undefined) out.modulo = filter.modulo;
  if (filter?.timestamp !== undefined) out.cron = filter.timestamp;
  return out;
}
