import { ApiPromise, HttpProvider, WsProvider } from '@polkadot/api';
import { Keyring } from '@polkadot/keyring';
import { cryptoWaitReady } from '@polkadot/util-crypto';
import { DEV_ACCOUNTS, type SubstrateDevChain } from './start-substrate-chain.ts';

/**
 * Signs and submits extrinsics as the dev accounts, and builds the blocks that hold them. Over HTTP
 * by default; `ws` for a chain in another process, whose HTTP server closes idle connections just
 * as a request may reuse one ("fetch failed: other side closed").
 */
export async function createSubstrateWorkload(chain: SubstrateDevChain, options: { transport?: 'http' | 'ws' } = {}) {
  await cryptoWaitReady();
  const provider = options.transport === 'ws' ? new WsProvider(chain.wsUrl) : new HttpProvider(chain.httpUrl);
  const api = await ApiPromise.create({ provider, noInitWarn: true });
  const keyring = new Keyring({ type: 'sr25519' });
  const signers = { alice: keyring.addFromUri('//Alice'), bob: keyring.addFromUri('//Bob'), charlie: keyring.addFromUri('//Charlie') };
  const nonces = new Map<string, number>();
  type Signer = keyof typeof signers;

  async function submit(from: Signer, tx: ReturnType<typeof api.tx.balances.transferKeepAlive>) {
    const pair = signers[from];
    const nonce = nonces.get(from) ?? (await api.rpc.system.accountNextIndex(pair.address)).toNumber();
    nonces.set(from, nonce + 1);
    await tx.signAndSend(pair, { nonce });
  }

  return {
    api,
    accounts: DEV_ACCOUNTS,
    transfer: (from: Signer, to: string, amount: bigint) => submit(from, api.tx.balances.transferKeepAlive(to, amount)),
    batchAll: (from: Signer, transfers: [to: string, amount: bigint][]) =>
      submit(from, api.tx.utility.batchAll(transfers.map(([to, amount]) => api.tx.balances.transferKeepAlive(to, amount)))),
    batch: (from: Signer, transfers: [to: string, amount: bigint][]) =>
      submit(from, api.tx.utility.batch(transfers.map(([to, amount]) => api.tx.balances.transferKeepAlive(to, amount)))),
    /** builds a block with what was submitted */
    block: () => chain.newBlocks(1),
    close: () => api.disconnect(),
  };
}
