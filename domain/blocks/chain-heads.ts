/** The identity of a block: enough to detect forks. */
export interface BlockRef {
  height: number;
  hash: string;
  parentHash: string;
  /** seconds since the epoch */
  timestamp: number;
}

/** What the indexing core needs of any chain: its heads and the identity of its blocks. */
export interface ChainHeads {
  /** height of the newest block */
  bestHeight(): Promise<number>;
  /**
   * Height of the newest block the chain itself calls finalized, or null when the chain has no
   * such notion; the caller then counts `--block-confirmations` back from `bestHeight()`.
   */
  finalizedHeight(): Promise<number | null>;
  /** Just the identity of each block, in the same order: enough to detect forks. */
  getBlockRefs(heights: readonly number[]): Promise<BlockRef[]>;
}
