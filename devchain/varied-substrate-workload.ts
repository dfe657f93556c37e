import { ApiPromise, HttpProvider } from '@polkadot/api';
import type { SubmittableExtrinsic } from '@polkadot/api/types';
import { Keyring } from '@polkadot/keyring';
import type { KeyringPair } from '@polkadot/keyring/types';
import { createKeyMulti, cryptoWaitReady, encodeAddress, sortAddresses } from '@polkadot/util-crypto';
import { startSubstrateChain, type SubstrateDevChain } from './start-substrate-chain.ts';

/**
 * A varied and reproducible workload on the local Substrate chain, for comparing indexers on real
 * projects: transfers (kept alive, plain, to new accounts, failing, transfer-all reaping an account),
 * `utility.batch`/`batchAll` with failing inner calls, remarks, assets (create, metadata, mint,
 * transfer, failing transfer), proxies (added, used, a pure proxy, removed), a 2-of-3 multisig
 * (opened, executed, cancelled; a threshold-1 call), uniques, and empty blocks, over
 * VARIED_WORKLOAD_BLOCKS blocks. Every run gives the same blocks and hashes: the chain's clock starts
 * at a fixed time, the signers are ed25519 (deterministic signatures) with explicit nonces and
 * immortal eras, and every step is submitted in a fixed order.
 */
export const VARIED_WORKLOAD_GENESIS_TIMESTAMP = Date.UTC(2024, 0, 1);
export const VARIED_WORKLOAD_BLOCKS = 40;

/** The signers' seeds: ed25519 //Alice … //Eve are funded at genesis; //Ferdie only receives. */
const FUNDED = ['Alice', 'Bob', 'Charlie', 'Dave', 'Eve'] as const;
type Signer = Lowercase<(typeof FUNDED)[number]>;

export function variedWorkloadKeys() {
  const keyring = new Keyring({ type: 'ed25519' });
  const pair = (name: string) => keyring.addFromUri(`//${name}`);
  const signers = Object.fromEntries(FUNDED.map((n) => [n.toLowerCase(), pair(n)])) as Record<Signer, KeyringPair>;
  const ferdie = pair('Ferdie').address;
  const members = sortAddresses([signers.alice.address, signers.bob.address, signers.charlie.address]);
  const multisig = encodeAddress(createKeyMulti(members, 2));
  return { signers, ferdie, members, multisig };
}

export interface VariedWorkload {
  /** the last block the workload built */
  lastBlock: number;
  /** block hashes by height, 1…lastBlock */
  hashes: string[];
}

/** Starts the deterministic chain for the varied workload (close it when done). */
export async function startVariedChain(options: { port?: number } = {}): Promise<SubstrateDevChain> {
  await cryptoWaitReady();
  const { signers } = variedWorkloadKeys();
  return startSubstrateChain({
    ...options,
    genesisTimestamp: VARIED_WORKLOAD_GENESIS_TIMESTAMP,
    fund: Object.values(signers).map((s) => s.address),
  });
}

export async function runVariedWorkload(chain: SubstrateDevChain): Promise<VariedWorkload> {
  await cryptoWaitReady();
  const api = await ApiPromise.create({ provider: new HttpProvider(chain.httpUrl), noInitWarn: true });
  try {
    const { signers, ferdie, members, multisig } = variedWorkloadKeys();
    const { alice, bob, charlie, dave, eve } = signers;
    const nonces = new Map<string, number>();
    const tx = api.tx;
    const UNIT = 10n ** 12n;
    const TOO_MUCH = 10n ** 30n;

    async function submit(from: KeyringPair, call: SubmittableExtrinsic<'promise'>) {
      const nonce = nonces.get(from.address) ?? 0;
      nonces.set(from.address, nonce + 1);
      await call.signAndSend(from, { nonce, era: 0 });
    }
    /** submits `calls` in order, then builds the block that holds them */
    async function block(...calls: [KeyringPair, SubmittableExtrinsic<'promise'>][]) {
      for (const [from, call] of calls) await submit(from, call);
      await chain.newBlocks(1);
    }
    const otherSignatories = (who: KeyringPair) => members.filter((m) => m !== who.address);
    const multisigTransfer = tx.balances.transferKeepAlive(dave.address, 3n * UNIT);
    const multisigRemark = tx.system.remarkWithEvent('multisig cancelled');
    const maxWeight = 1_000_000_000n;
    // this 2021 runtime's multisig calls take a plain u64 weight and a store_call flag, which the
    // augmented API types (made for today's runtimes) do not describe; the call itself is built from the chain's metadata
    const multisigCalls = tx.multisig as unknown as Record<'asMulti' | 'approveAsMulti', (...args: unknown[]) => SubmittableExtrinsic<'promise'>>;

    // block 1 is the chain's first (inherents only)
    // 2: plain transfers, one creating an account, and a remark
    await block(
      [alice, tx.balances.transferKeepAlive(bob.address, 5n * UNIT)],
      [alice, tx.balances.transfer(ferdie, 2n * UNIT)],
      [charlie, tx.system.remark('0x68656c6c6f')],
    );
    // 3: a batch of three transfers
    await block([
      alice,
      tx.utility.batch([
        tx.balances.transferKeepAlive(bob.address, UNIT),
        tx.balances.transferKeepAlive(charlie.address, 2n * UNIT),
        tx.balances.transferKeepAlive(dave.address, 3n * UNIT),
      ]),
    ]);
    // 4: a batch interrupted by its second call (the first stands), a batchAll failing as a whole
    await block(
      [bob, tx.utility.batch([tx.balances.transferKeepAlive(charlie.address, UNIT), tx.balances.transferKeepAlive(dave.address, TOO_MUCH)])],
      [charlie, tx.utility.batchAll([tx.balances.transferKeepAlive(eve.address, UNIT), tx.balances.transferKeepAlive(bob.address, TOO_MUCH)])],
    );
    // 5: a failing transfer, a remark with an event, a successful batchAll with a remark inside
    await block(
      [dave, tx.balances.transfer(eve.address, TOO_MUCH)],
      [eve, tx.system.remarkWithEvent('idx fixtures')],
      [bob, tx.utility.batchAll([tx.system.remark('0x01'), tx.balances.transfer(ferdie, UNIT)])],
    );
    // 6: an asset created and described; 7: minted to two holders
    await block([alice, tx.assets.create(7, alice.address, 1)], [alice, tx.assets.setMetadata(7, 'Fixture Token', 'FIX', 10)]);
    await block([alice, tx.assets.mint(7, bob.address, 1_000_000)], [alice, tx.assets.mint(7, charlie.address, 500_000)]);
    // 8: asset transfers, one failing (Eve holds none), and an asset mint inside a batchAll with a transfer
    await block(
      [bob, tx.assets.transfer(7, dave.address, 1_000)],
      [charlie, tx.assets.transferKeepAlive(7, eve.address, 2_000)],
      [dave, tx.assets.transfer(7, bob.address, TOO_MUCH)],
      [alice, tx.utility.batchAll([tx.assets.mint(7, dave.address, 77), tx.balances.transferKeepAlive(eve.address, UNIT)])],
    );
    // 9: Bob becomes Alice's proxy; the multisig account is funded
    await block([alice, tx.proxy.addProxy(bob.address, 'Any', 0)], [alice, tx.balances.transferKeepAlive(multisig, 10n * UNIT)]);
    // 10: Bob transfers as Alice, and batches as Alice (a transfer and a failing one, interrupted)
    await block(
      [bob, tx.proxy.proxy(alice.address, null, tx.balances.transferKeepAlive(charlie.address, 4n * UNIT))],
      [bob, tx.proxy.proxy(alice.address, null, tx.utility.batch([tx.balances.transfer(ferdie, UNIT), tx.balances.transfer(ferdie, TOO_MUCH)]))],
    );
    // 11: the multisig opens a transfer (Alice) and a remark it will cancel (Charlie)
    await block(
      [alice, multisigCalls.asMulti(2, otherSignatories(alice), null, multisigTransfer.method.toHex(), false, maxWeight)],
      [charlie, multisigCalls.approveAsMulti(2, otherSignatories(charlie), null, multisigRemark.method.hash.toHex(), maxWeight)],
    );
    const opened = (await api.query.multisig.multisigs.entries(multisig)).map(([key, value]) => ({
      callHash: key.args[1]!.toHex(),
      when: value.unwrap().when,
    }));
    const timepoint = (hash: string) => opened.find((o) => o.callHash === hash)!.when;
    // 12: Bob's approval executes the transfer; Charlie cancels the remark
    await block(
      [
        bob,
        multisigCalls.asMulti(2, otherSignatories(bob), timepoint(multisigTransfer.method.hash.toHex()), multisigTransfer.method.toHex(), false, maxWeight),
      ],
      [charlie, tx.multisig.cancelAsMulti(2, otherSignatories(charlie), timepoint(multisigRemark.method.hash.toHex()), multisigRemark.method.hash.toHex())],
    );
    // 13: a threshold-1 multisig call; a pure (anonymous) proxy created by Dave
    await block([dave, tx.multisig.asMultiThreshold1([eve.address], tx.system.remarkWithEvent('threshold 1'))], [dave, tx.proxy.anonymous('Any', 0, 0)]);
    // 14: three empty blocks
    await block();
    await block();
    await block();
    // 17: a uniques class, an item minted and transferred
    await block([eve, tx.uniques.create(3, eve.address)]);
    await block([eve, tx.uniques.mint(3, 1, eve.address)]);
    await block([eve, tx.uniques.transfer(3, 1, ferdie)]);
    // 20: Bob is no longer Alice's proxy; his proxied transfer fails; asset metadata cleared
    await block([alice, tx.proxy.removeProxy(bob.address, 'Any', 0)], [alice, tx.assets.clearMetadata(7)]);
    await block([bob, tx.proxy.proxy(alice.address, null, tx.balances.transferKeepAlive(bob.address, UNIT))]);
    // 22: many transfers in one block, from several signers
    await block(
      ...[alice, bob, charlie, dave].map(
        (from, i) => [from, tx.balances.transferKeepAlive(ferdie, BigInt(i + 1) * 1_000_000_000n)] as [KeyringPair, SubmittableExtrinsic<'promise'>],
      ),
      [alice, tx.utility.batch([1, 2, 3, 4, 5].map((i) => tx.balances.transferKeepAlive(eve.address, BigInt(i) * 10_000_000n)))],
    );
    // 23: Eve sends everything she has to Ferdie, and her account is reaped
    await block([eve, tx.balances.transferAll(ferdie, false)]);
    // then empty blocks up to VARIED_WORKLOAD_BLOCKS, with a transfer every fifth block
    let i = 0;
    while ((await chain.height()) < VARIED_WORKLOAD_BLOCKS) {
      const next = (await chain.height()) + 1;
      if (next % 5 === 0) await block([charlie, tx.balances.transferKeepAlive(dave.address, BigInt(++i) * UNIT)]);
      else await block();
    }
    const lastBlock = await chain.height();
    const hashes: string[] = [];
    for (let h = 1; h <= lastBlock; h++) hashes.push((await api.rpc.chain.getBlockHash(h)).toHex());
    return { lastBlock, hashes };
  } finally {
    await api.disconnect();
  }
}
