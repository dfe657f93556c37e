import { IdxError } from '../../../domain/errors.ts';
import type { LoadedProject } from '../../../infra/project/load-project.ts';
import { createRpcClient, type RpcClient, type RpcClientOptions } from '../../../infra/rpc/create-rpc-client.ts';
import { RpcUnreachableError } from '../../../infra/rpc/rpc-error.ts';

type Network = NonNullable<LoadedProject['manifest']['network']>;

export interface ChainClients {
  /** the options both clients are made with (`--workers` threads make their own from them) */
  rpc: RpcClientOptions;
  /** the indexing loop's: fails over between endpoints but never waits, fetch-retry.ts does */
  client: RpcClient;
  /** the handlers' chain reads: with rounds of its own, as nothing above a handler can retry half a block */
  handlerClient: RpcClient;
}

/**
 * What stands between the node and its endpoints, when something does: `idx-node test` records the
 * answers there, or replays them without the endpoint.
 */
export type ClientLayer = (client: RpcClient) => RpcClient;

/**
 * The two JSON-RPC clients of a chain family over the manifest's endpoints (`urlOf` rewrites each URL),
 * each behind `layer` when given.
 */
export function chainClients(
  network: Network,
  urlOf: (url: string) => string = (url) => url,
  extra: Partial<RpcClientOptions> = {},
  layer: ClientLayer = (client) => client,
): ChainClients {
  // SubQuery's per-endpoint `batchSize`: one client batches for all endpoints, so the smallest holds
  const batchSizes = network.endpoints.flatMap((e) => (e.batchSize === undefined ? [] : [e.batchSize]));
  const rpc: RpcClientOptions = {
    endpoints: network.endpoints.map((e) => ({ url: urlOf(e.url), ...(e.headers && { headers: e.headers }) })),
    timeoutMs: 30_000,
    retries: 0,
    ...(batchSizes.length > 0 && { maxBatchSize: Math.min(...batchSizes) }),
    ...extra,
  };
  return { rpc, client: layer(createRpcClient(rpc)), handlerClient: layer(createRpcClient({ ...rpc, retries: 3 })) };
}

/** Start-up's check of the chain gave up: no endpoint answered. */
export function chainUnreachable(err: unknown): never {
  if (err instanceof RpcUnreachableError) throw new IdxError('CHAIN_UNREACHABLE', `cannot reach the chain: ${err.message}`, { cause: err });
  throw err;
}
