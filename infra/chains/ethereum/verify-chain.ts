import { IdxError } from '../../../domain/errors.ts';
import { checkStoredGenesis } from '../../rpc/check-stored-genesis.ts';
import type { RpcClient } from '../../rpc/create-rpc-client.ts';
import { hexToNumber } from '../../rpc/hex-quantity.ts';
import { RpcUnreachableError } from '../../rpc/rpc-error.ts';
import { toBlockRef } from './eth-wire.ts';

export interface ChainIdentity {
  chainId: number;
  genesisHash: string;
}

export interface ExpectedChain {
  /** the manifest's `network.chainId` (a string in SubQuery manifests) */
  chainId: string | number;
  /** the genesis hash an earlier run stored, if any */
  genesisHash?: string;
}

/**
 * Asks every endpoint for its chain id and genesis block and checks them against the manifest
 * (and an earlier run): with several endpoints in rotation, one on the wrong chain would mix two
 * chains' data silently. Endpoints that do not answer are skipped here (the client fails over
 * around them); none answering is RPC_UNREACHABLE.
 */
export async function verifyChain(client: RpcClient, expected: ExpectedChain): Promise<ChainIdentity> {
  const answers = await client.batchEach([
    { method: 'eth_chainId', params: [] },
    { method: 'eth_getBlockByNumber', params: ['0x0', false] },
  ]);
  const identities: (ChainIdentity & { endpoint: string })[] = [];
  for (const a of answers) {
    if ('failure' in a) continue;
    const [id, genesis] = a.settled;
    if (!id!.ok) throw id!.error;
    if (!genesis!.ok) throw genesis!.error;
    if (genesis!.value === null)
      throw new IdxError('CHAIN_NO_GENESIS', `${a.endpoint} has no block 0 (a pruned node?): the indexer needs it to identify the chain`);
    identities.push({ endpoint: a.endpoint, chainId: hexToNumber(id!.value, 'chain id'), genesisHash: toBlockRef(genesis!.value).hash });
  }
  if (identities.length === 0) {
    throw new RpcUnreachableError(
      'eth_chainId',
      answers.length,
      answers.map((a) => ({ endpoint: a.endpoint, error: 'failure' in a ? a.failure : '' })),
    );
  }
  const want = String(expected.chainId).trim();
  for (const e of identities) {
    if (String(e.chainId) !== want) {
      throw new IdxError(
        'CHAIN_ID_MISMATCH',
        `${e.endpoint} serves chain ${e.chainId}, but the manifest's network.chainId is "${want}": point the endpoint at chain ${want}, or fix network.chainId`,
      );
    }
  }
  const first = identities[0]!;
  const other = identities.find((e) => e.genesisHash !== first.genesisHash);
  if (other !== undefined) {
    throw new IdxError(
      'CHAIN_GENESIS_MISMATCH',
      `the endpoints serve different chains with id ${first.chainId}: ${first.endpoint} has genesis ${first.genesisHash}, ${other.endpoint} has ${other.genesisHash}; use endpoints of one chain`,
    );
  }
  if (expected.genesisHash !== undefined) checkStoredGenesis(expected.genesisHash, first.genesisHash, first.endpoint);
  return { chainId: first.chainId, genesisHash: first.genesisHash };
}

export interface VerifyRetry {
  /** tries in all (default 5) */
  attempts?: number;
  /** wait before the second try; doubles each time (default 500 ms, as indexing's fetch retries) */
  backoffMs?: number;
  /** told before each wait */
  onRetry?: (err: Error, attempt: number, waitMs: number, attempts: number) => void;
  /** stops waiting: the last error is thrown */
  signal?: AbortSignal;
}

/**
 * {@link verifyChain}, tried again on errors that may pass (every endpoint down, rate limited,
 * reset): one 429 at start should not stop a node that would ride it out while indexing. A wrong
 * chain or genesis is final at once.
 */
export async function verifyChainRetrying(client: RpcClient, expected: ExpectedChain, retry: VerifyRetry = {}): Promise<ChainIdentity> {
  const attempts = retry.attempts ?? 5;
  const backoffMs = retry.backoffMs ?? 500;
  for (let attempt = 1; ; attempt++) {
    try {
      return await verifyChain(client, expected);
    } catch (err) {
      if (!(err instanceof IdxError && err.retryable) || attempt >= attempts || retry.signal?.aborted) throw err;
      const waitMs = backoffMs * 2 ** (attempt - 1);
      retry.onRetry?.(err, attempt, waitMs, attempts);
      const aborted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          retry.signal?.removeEventListener('abort', onAbort);
          resolve(false);
        }, waitMs);
        const onAbort = () => {
          clearTimeout(timer);
          resolve(true);
        };
        retry.signal?.addEventListener('abort', onAbort, { once: true });
      });
      if (aborted) throw err;
    }
  }
}
