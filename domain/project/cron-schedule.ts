import { CronExpressionParser } from 'cron-parser';

/**
 * Whether a `timestamp` block filter is due at a block: a tick of the cron schedule (UTC) falls
 * after the previous block's time and at or before this block's. Depending only on the two
 * timestamps keeps it deterministic: two runs over one chain run the handler at the same blocks.
 */
export function cronDue(expression: string, previousBlockTime: number, blockTime: number): boolean {
  if (blockTime <= previousBlockTime) return false;
  const next = CronExpressionParser.parse(expression, { currentDate: new Date(previousBlockTime * 1000), tz: 'UTC' }).next();
  return next.getTime() <= blockTime * 1000;
}
