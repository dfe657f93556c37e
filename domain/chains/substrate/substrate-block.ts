/**
 * A Substrate block as the node matches it: what filters read, decoded once on the host. The
 * mappings get the block itself (SCALE, decoded in the sandbox with the chain's metadata).
 */
export interface SubstrateBlockSummary {
  height: number;
  hash: string;
  parentHash: string;
  /** `timestamp.set` of the block, in seconds since the epoch (0 when the block has none) */
  timestamp: number;
  specVersion: number;
  extrinsics: { section: string; method: string; isSigned: boolean; success: boolean }[];
  /** in the order of `System.Events`; `extrinsic` is the index of the extrinsic applying it, else the block's phase */
  events: { section: string; method: string; extrinsic: number | 'initialization' | 'finalization' }[];
}

/** What crosses to the sandbox for one block: its SCALE parts and the metadata to decode them. */
export interface SubstrateRawBlock {
  /** `chain_getBlock`'s answer: `{ block: { header, extrinsics: hex[] }, justifications }` */
  signedBlock: unknown;
  /** `System.Events` storage at the block, hex */
  events: string;
  /** where each event record starts in `events` (bytes), and where the last one ends */
  eventOffsets: number[];
  /** the block's `timestamp.set`, in milliseconds (null when the block has none) */
  timestampMs: number | null;
  specVersion: number;
}

/** A fetched Substrate block: its summary for matching and its raw parts for the mappings. */
export interface SubstrateBlock extends SubstrateBlockSummary {
  raw: SubstrateRawBlock;
}
