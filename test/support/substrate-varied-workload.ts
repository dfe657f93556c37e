import { ApiPromise } from '@polkadot/api';
import { RetryingHttpProvider } from './retrying-http-provider.ts';
import { Keyring } from '@polkadot/keyring';
import type { SubmittableExtrinsic } from '@polkadot/api/types';
import { createKeyMulti, cryptoWaitReady, encodeAddress, sortAddresses } from '@polkadot/util-crypto';
import type { SubstrateDevChain } from '../../devchain/start-substrate-chain.ts';

/**
 * Blocks of every kind of extrinsic a Substrate indexer meets, signed by the dev accounts on the
 * chopsticks chain: plain and tipped transfers, `utility.batch`/`batchAll` with failing inner calls,
 * failing transfers (more than the sender has; below the existential deposit to a new account),
 * `system.remark`/`remarkWithEvent`, `assets` (create, mint, transfer), `proxy` (add, proxied
 * transfer), `multisig` (approve, as_multi, as_multi_threshold_1), and blocks with the inherents only.
 * Returns the height of the last block built.
 */
export async function buildVariedBlocks(chain: SubstrateDevChain): Promise<number> {
  await cryptoWaitReady();
  const api = await ApiPromise.create({ provider: new RetryingHttpProvider(chain.httpUrl), noInitWarn: true });
  try {
    const keyring = new Keyring({ type: 'sr25519', ss58Format: api.registry.chainSS58 });
    const [alice, bob, charlie] = ['//Alice', '//Bob', '//Charlie'].map((uri) => keyring.addFromUri(uri));
    const nonces = new Map<string, number>();
    const submit = async (from: typeof alice, tx: SubmittableExtrinsic<'promise'>, options: { tip?: bigint } = {}) => {
      const nonce = nonces.get(from!.address) ?? (await api.rpc.system.accountNextIndex(from!.address)).toNumber();
      nonces.set(from!.address, nonce + 1);
      await tx.signAndSend(from!, { nonce, ...options });
    };
    const block = () => chain.newBlocks(1);
    const UNIT = 10n ** 12n;
    const TOO_MUCH = 10n ** 30n;
    // an account nobody funded: a transfer to it below the existential deposit fails
    const nobody = encodeAddress(new Uint8Array(32).fill(7), api.registry.chainSS58);
    const multisig = encodeAddress(createKeyMulti([alice!.address, bob!.address], 2), api.registry.chainSS58);
    const ASSET = 77;
    const { tx } = api;
    // this runtime's multisig calls predate the ones @polkadot/api's typings describe (weights as a plain u64, as_multi's store_call)
    const multisigTx = tx.multisig as unknown as Record<string, (...args: unknown[]) => SubmittableExtrinsic<'promise'>>;

    await submit(alice!, tx.balances.transferKeepAlive(bob!.address, UNIT));
    await submit(bob!, tx.system.remark('0x68656c6c6f'));
    await submit(charlie!, tx.system.remarkWithEvent('idx differential walk'), { tip: 12_345n });
    await block();

    await submit(
      alice!,
      tx.utility.batch([
        tx.balances.transferKeepAlive(charlie!.address, 2n * UNIT),
        tx.balances.transferKeepAlive(bob!.address, TOO_MUCH),
        tx.system.remark('0x01'),
      ]),
    );
    await submit(bob!, tx.utility.batchAll([tx.balances.transferKeepAlive(charlie!.address, UNIT), tx.balances.transferKeepAlive(alice!.address, TOO_MUCH)]));
    await submit(charlie!, tx.utility.batchAll([tx.system.remarkWithEvent('in a batch'), tx.balances.transferKeepAlive(multisig, 10n * UNIT)]));
    await block();

    await submit(bob!, tx.balances.transferKeepAlive(charlie!.address, TOO_MUCH));
    await submit(alice!, tx.balances.transfer(nobody, 1_000n));
    await block();

    await submit(alice!, tx.assets.create(ASSET, alice!.address, 1));
    await submit(alice!, tx.proxy.addProxy(charlie!.address, 'Any', 0));
    await block();
    await submit(alice!, tx.assets.mint(ASSET, bob!.address, 1_000_000));
    await submit(charlie!, tx.proxy.proxy(alice!.address, null, tx.balances.transferKeepAlive(bob!.address, 3n * UNIT)));
    await block();
    await submit(bob!, tx.assets.transfer(ASSET, charlie!.address, 400));
    await submit(bob!, tx.assets.transfer(ASSET, charlie!.address, 10n ** 20n));
    await block();

    // multisig: Alice approves a transfer from the 2-of-2 account, Bob executes it
    const call = tx.balances.transferKeepAlive(charlie!.address, UNIT);
    const others = (signer: string) =>
      sortAddresses(
        [alice!.address, bob!.address].filter((a) => a !== signer),
        api.registry.chainSS58,
      );
    await submit(alice!, multisigTx.approveAsMulti!(2, others(alice!.address), null, call.method.hash, 0));
    await submit(charlie!, tx.multisig.asMultiThreshold1([alice!.address], tx.system.remarkWithEvent('threshold 1')));
    await block();
    const pending = await api.query.multisig.multisigs(multisig, call.method.hash);
    const when = (pending.toJSON() as { when: { height: number; index: number } }).when;
    await submit(bob!, multisigTx.asMulti!(2, others(bob!.address), when, call.method.toHex(), false, 1_000_000_000));
    await block();

    // the inherents alone
    await block();
    return await chain.height();
  } finally {
    await api.disconnect();
  }
}
