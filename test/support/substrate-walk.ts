import { readFileSync } from 'node:fs';
import type { ApiPromise } from '@polkadot/api';
import type { BlockHash, EventRecord, SignedBlock } from '@polkadot/types/interfaces';
import { REPO } from './idx-programs.ts';

/** test/fixtures/substrate-walk/walk.js: the walk of a handler's argument, as text, the same in the sandbox and in Node. */
export const WALK_SOURCE = readFileSync(`${REPO}/test/fixtures/substrate-walk/walk.js`, 'utf8');

export type WalkPairs = [path: string, value: unknown][];
interface Walker {
  block(b: unknown): WalkPairs;
  call(x: unknown): WalkPairs;
  event(e: unknown): WalkPairs;
  api(api: unknown): Promise<WalkPairs>;
}

/** The walk in this process, made from the same text the mapping runs. */
export function createWalker(): Walker {
  const module = { exports: {} as { createWalker: () => Walker } };
  new Function('module', 'exports', WALK_SOURCE)(module, module.exports);
  return module.exports.createWalker();
}

/**
 * A mapping whose handlers (onBlock, onCall, onEvent) walk their argument and `store.set` the walk as
 * entity `Walk`, id `<height>-b`, `<height>-x<idx>` or `<height>-e<idx>`, with `json` the pairs.
 */
export const WALK_MAPPING = `
const walker = (() => {
  const module = { exports: {} };
  ${WALK_SOURCE}
  return module.exports.createWalker();
})();
const put = (id, pairs) => store.set('Walk', id, { id, json: JSON.stringify(pairs) });
// the id after the walk: reading the height first would be a first read of its own
module.exports.onBlock = async (b) => { const w = walker.block(b); await put(b.block.header.number.toNumber() + '-b', w.concat(await walker.api(api))); };
module.exports.onCall = async (x) => { const w = walker.call(x); await put(x.block.block.header.number.toNumber() + '-x' + x.idx, w); };
module.exports.onEvent = async (e) => { const w = walker.event(e); await put(e.block.block.header.number.toNumber() + '-e' + e.idx, w); };
`;

/**
 * SubstrateBlock, SubstrateExtrinsic[] and SubstrateEvent[] of one block as @subql/node builds them
 * (packages/node/src/utils/substrate.ts, fetchBlocksBatches): the SignedBlock and System.Events from
 * @polkadot/api at the block, the spec version of its parent's runtime, then wrapBlock, wrapExtrinsics
 * and wrapEvents. Those use lodash `merge`; for these sources it does what is written here: the
 * SignedBlock gets `timestamp`, `specVersion` and `events` (a new plain array of the same records), and
 * each record `idx` and `block`, as own enumerable properties, in that order.
 */
export async function subqlObjectsOf(api: ApiPromise, height: number) {
  const hash = await api.rpc.chain.getBlockHash(height);
  const signed = await api.rpc.chain.getBlock(hash);
  const events = await api.query.system.events.at(hash);
  const { specVersion } = await api.rpc.state.getRuntimeVersion(signed.block.header.parentHash);
  const block = Object.assign(signed, { timestamp: timestampOf(signed), specVersion: specVersion.toNumber(), events: [...events.toArray()] });
  const grouped: Record<number, EventRecord[]> = {};
  for (const e of events) if (e.phase.isApplyExtrinsic) (grouped[e.phase.asApplyExtrinsic.toNumber()] ??= []).push(e);
  const extrinsics = block.block.extrinsics.map((extrinsic, idx) => {
    const own = grouped[idx]!;
    return { idx, extrinsic, block, events: own, success: own.findIndex((e) => e.event.method === 'ExtrinsicSuccess') > -1 };
  });
  const wrapped = events.map((e, idx) => {
    const made: typeof e & { idx: number; extrinsic?: (typeof extrinsics)[number] } = Object.assign(e, { idx, block });
    if (e.phase.isApplyExtrinsic) made.extrinsic = extrinsics[e.phase.asApplyExtrinsic.toNumber()];
    return made;
  });
  return { block, extrinsics, events: wrapped, api: await subqlApiAt(api, hash) };
}

/**
 * The \`api\` of @subql/node's mappings (indexer/api.service.ts, getPatchedApi): \`api.at(block)\`, its
 * JSON-RPC calls given the block when they leave it out (here the calls the walk makes).
 */
async function subqlApiAt(api: ApiPromise, hash: BlockHash) {
  const at = await api.at(hash);
  return Object.assign(Object.create(at) as typeof at, {
    rpc: {
      chain: { getHeader: () => api.rpc.chain.getHeader(hash), getBlock: () => api.rpc.chain.getBlock(hash) },
      state: { getRuntimeVersion: () => api.rpc.state.getRuntimeVersion(hash), getStorage: (key: string) => api.rpc.state.getStorage(key, hash) },
    },
  });
}

function timestampOf(signed: SignedBlock): Date | undefined {
  for (const e of signed.block.extrinsics) if (e.method.section === 'timestamp' && e.method.method === 'set') return new Date(e.args[0]!.toJSON() as number);
  return undefined;
}
