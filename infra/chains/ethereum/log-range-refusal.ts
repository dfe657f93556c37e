import { RpcError } from '../../rpc/rpc-error.ts';

/** What a provider's refusal of an `eth_getLogs` range says about a range it would accept. */
export interface LogRangeAdvice {
  /** the most blocks one query may span, when the provider states a block limit */
  maxBlocks?: number;
  /** a narrower end for this very query, when the provider suggests one (result-count limits) */
  suggestedToBlock?: number;
}

/**
 * Whether an `eth_getLogs` error is a provider refusing the range or result size, and what it
 * hints. Providers only agree on the idea, not on codes or texts:
 * - geth/Infura: -32005 `query returned more than 10000 results` (Infura adds `Try with this block range [0x.., 0x..]` and `data.{from,to}`)
 * - Alchemy: -32602 `Log response size exceeded. … this block range should work: [0x.., 0x..]`
 * - QuickNode: -32614 `eth_getLogs is limited to a 10,000 range`
 * - others: `block range is too wide`, `exceed maximum block range: 50000`, `block range too large, range: 10001, max: 10000`,
 *   `ranges over 10000 blocks are not supported`, `block range greater than 2000 max`
 * Returns null when the error is something else (bad params, rate limit, revert…).
 */
export function parseLogRangeRefusal(err: unknown, range: { fromBlock: number; toBlock: number }): LogRangeAdvice | null {
  if (!(err instanceof RpcError) || err.retryable) return null;
  const text = err.message;
  const looksLikeRange = err.rpcCode === -32005 || /range|results|too (many|large|wide|big)|exceed|limit|response size|max|distance|timed? ?out/i.test(text);
  if (!looksLikeRange) return null;

  const advice: LogRangeAdvice = {};
  const suggested = /\[\s*(0x[0-9a-f]+|\d+)\s*,\s*(0x[0-9a-f]+|\d+)\s*\]/i.exec(text);
  const dataTo = (err.data as { to?: unknown } | null | undefined)?.to;
  const to = suggested ? Number(suggested[2]) : typeof dataTo === 'string' ? Number(dataTo) : undefined;
  if (to !== undefined && Number.isSafeInteger(to) && to >= range.fromBlock && to < range.toBlock) advice.suggestedToBlock = to;

  const maxBlocks = statedBlockLimit(text);
  if (maxBlocks !== undefined && maxBlocks >= 1 && maxBlocks < range.toBlock - range.fromBlock + 1) advice.maxBlocks = maxBlocks;
  return advice;
}

const NUMBER = String.raw`(\d[\d,_]*)(k)?`;
/** first match wins; every pattern's number is a count of blocks, never of results */
const BLOCK_LIMIT_PATTERNS = [
  new RegExp(String.raw`max(?:imum)?(?: block)?(?: range| distance)?(?: is| of)?\s*[:=]?\s*${NUMBER}`, 'i'),
  new RegExp(String.raw`${NUMBER}\s*-?\s*blocks?\b`, 'i'),
  new RegExp(String.raw`${NUMBER}\s*max\b`, 'i'),
  new RegExp(String.raw`limited to (?:a )?${NUMBER}`, 'i'),
  new RegExp(String.raw`distance[^0-9]{0,12}${NUMBER}`, 'i'),
];

function statedBlockLimit(text: string): number | undefined {
  for (const pattern of BLOCK_LIMIT_PATTERNS) {
    const m = pattern.exec(text);
    if (!m) continue;
    const n = Number(m[1]!.replace(/[,_]/g, '')) * (m[2] ? 1000 : 1);
    if (Number.isSafeInteger(n) && n > 0) return n;
  }
  return undefined;
}
