// The globals idx's sandbox gives mapping code, as SubQuery's do.
import type { Cache, EthereumApi, Logger, Store } from "./ethereum";

declare global {
  const store: Store;
  const logger: Logger;
  /** eth calls pinned to the block being processed */
  const api: EthereumApi;
  /** unpinned calls and more; only when the node runs with --unsafe */
  const unsafeApi: EthereumApi | undefined;
  const chainId: string;
  const cache: Cache;
  /** starts indexing a template from the current block; args merge into its options */
  function createDynamicDatasource(templateName: string, args: Record<string, unknown>): Promise<void>;
}

export {};
