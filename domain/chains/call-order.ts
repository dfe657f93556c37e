/**
 * Where a handler call stands in its block, in SubQuery's order: the item (the block, a transaction or
 * extrinsic, a log or event) by its place in the block, then the data source, then the handler. Compared
 * element by element; two calls of one pool never compare equal. A data source a handler creates runs on
 * the calls of its block that come after the creating one, as SubQuery's node appends it to the data sources
 * it is iterating (block-processor.ts).
 */
export type CallOrder = readonly number[];

export function compareCallOrder(a: CallOrder, b: CallOrder): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
