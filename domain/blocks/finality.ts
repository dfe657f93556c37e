/**
 * The highest height treated as final. The chain's `finalized` tag wins when it answers;
 * otherwise the block `confirmations` behind the best one (`--block-confirmations`).
 */
export function finalizedHeight(best: number, finalizedTag: number | undefined, confirmations: number): number {
  if (finalizedTag !== undefined) return Math.min(finalizedTag, best);
  return Math.max(0, best - confirmations);
}
