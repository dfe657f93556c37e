import type { ProcessorDataSource } from '../../../../../domain/chains/substrate/custom-data-source.ts';
import type { BlockPayload } from '../../wire.ts';

/** The kinds of a Substrate block's calls: the block (0, as every family's), an extrinsic (call handlers), an event. */
export const SUBSTRATE_CALL = { block: 0, extrinsic: 3, event: 4 } as const;

/** A Substrate handler call; a call through a custom data source's processor: its source and the handler's position there. */
export type SubstrateWireCall = [
  handler: string,
  kind: number,
  index: number,
  args?: undefined,
  txLogArgs?: undefined,
  custom?: [source: number, position: number],
];

/** A Substrate block as it crosses: `substrate` holds its SCALE parts, decoded inside with the runtime's metadata. */
export interface SubstrateBlockPayload extends BlockPayload {
  transactions: null;
  logs: [];
  logsComplete: true;
  calls: SubstrateWireCall[];
  substrate: SubstratePayload;
}

/**
 * A Substrate block as it crosses: `chain_getBlock`'s answer, `System.Events` (hex) and the runtime
 * that ran it, with what the host learnt decoding it (so the sandbox decodes only what handlers read).
 */
export interface SubstratePayload {
  signedBlock: unknown;
  events: string;
  /** where each event record starts in `events`, and where the last ends */
  eventOffsets: number[];
  /** per event, the index of the extrinsic that emitted it (-1: initialization or finalization) */
  eventExtrinsics: number[];
  /** per extrinsic, whether a `system.ExtrinsicSuccess` event says it succeeded */
  extrinsicSuccess: boolean[];
  timestampMs: number | null;
  specVersion: number;
  hash: string;
  /** the custom data sources the calls go through, by source index */
  customSources?: Record<number, ProcessorDataSource>;
}
