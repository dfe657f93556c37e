import type { SubstrateBlock } from '../../../../domain/chains/substrate/substrate-block.ts';
import type { SubstrateHandlerCall } from '../../../../domain/chains/substrate/match-substrate-handlers.ts';
import type { ProcessorDataSource } from '../../../../domain/chains/substrate/custom-data-source.ts';
import { SUBSTRATE_CALL, type SubstrateBlockPayload, type SubstrateWireCall } from '../../isolate/families/substrate/substrate-wire.ts';
import { SandboxError } from '../../sandbox-error.ts';

/**
 * A Substrate block and its handler calls as the sandbox's payload: the block's raw bytes (decoded
 * inside), each call by kind (3 an extrinsic, 4 an event) and index, and the custom data sources
 * a call goes through. `fresh`: the host dropped the last block (the sandbox clears its cache).
 */
export function substratePayload(block: SubstrateBlock, calls: readonly SubstrateHandlerCall[], fresh: boolean): SubstrateBlockPayload {
  return {
    height: block.height,
    fresh,
    block: { hash: block.hash, number: block.height, timestamp: block.timestamp },
    transactions: null,
    logs: [],
    logsComplete: true,
    calls: calls.map((c, i): SubstrateWireCall => {
      const through = c.custom && ([c.custom.source, c.custom.position] as [number, number]);
      if (c.kind === 'block')
        return through === undefined ? [c.handler, SUBSTRATE_CALL.block, 0] : [c.handler, SUBSTRATE_CALL.block, 0, undefined, undefined, through];
      const count = c.kind === 'call' ? block.extrinsics.length : block.events.length;
      if (!Number.isInteger(c.index) || c.index < 0 || c.index >= count) {
        throw new SandboxError(
          'INVALID_HANDLER_CALL',
          `call ${i} (${c.handler}) refers to ${c.kind === 'call' ? 'extrinsic' : 'event'} ${c.index} of block ${block.height}, which has ${count}`,
          { handler: c.handler, height: block.height },
        );
      }
      const kind = c.kind === 'call' ? SUBSTRATE_CALL.extrinsic : SUBSTRATE_CALL.event;
      return through === undefined ? [c.handler, kind, c.index] : [c.handler, kind, c.index, undefined, undefined, through];
    }),
    substrate: {
      signedBlock: block.raw.signedBlock,
      events: block.raw.events,
      eventOffsets: block.raw.eventOffsets,
      eventExtrinsics: block.events.map((e) => (typeof e.extrinsic === 'number' ? e.extrinsic : -1)),
      extrinsicSuccess: block.extrinsics.map((x) => x.success),
      timestampMs: block.raw.timestampMs,
      specVersion: block.raw.specVersion,
      hash: block.hash,
      ...customSourcesOf(calls),
    },
  };
}

/** The custom data sources a block's calls go through, for the processors inside. */
function customSourcesOf(calls: readonly SubstrateHandlerCall[]): { customSources?: Record<number, ProcessorDataSource> } {
  let out: Record<number, ProcessorDataSource> | undefined;
  for (const c of calls) if (c.custom !== undefined) (out ??= {})[c.custom.source] ??= c.custom.ds;
  return out === undefined ? {} : { customSources: out };
}
