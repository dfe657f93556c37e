import { encodeFunctionData, keccak256, toHex } from 'viem/utils';
import { IdxError } from '../domain/errors.ts';
import type { RpcClient } from '../infra/rpc/create-rpc-client.ts';
import { hexToNumber, toQuantity } from '../infra/rpc/hex-quantity.ts';
import { testErc20Abi } from './contracts/test-erc20.artifact.ts';
import { deployErc20 } from './deploy-erc20.ts';
import { seededRandom } from './seeded-random.ts';
import { ANVIL_DEV_ACCOUNT } from './start-anvil.ts';

export interface Erc20WorkloadOptions {
  blocks: number;
  transfersPerBlock: number;
  approvalsPerBlock: number;
  senders: number;
  recipients: number;
  /** an already deployed test ERC20; else one is deployed first */
  token?: string;
  /** varies amounts and recipients; the same seed gives the same workload */
  seed?: number;
}

export interface Erc20Workload {
  token: string;
  /** the deployment block (or, for a given token, the block before the mints): a data source's startBlock */
  startBlock: number;
  /**
   * The block where senders are minted their balance: one Transfer event from 0x0 each. On a token
   * given in the options, only senders running low are minted, and when none is, this is just the
   * block before the workload.
   */
  mintBlock: number;
  /** the workload's blocks, inclusive: exactly transfersPerBlock Transfer and approvalsPerBlock Approval events each */
  fromBlock: number;
  toBlock: number;
  senders: string[];
  recipients: string[];
  /** Transfer events in [fromBlock, toBlock] (the mints not included) */
  transfers: number;
  approvals: number;
}

/** Ample for any workload: every sender gets this many token units and gas money. */
const MINT_AMOUNT = 10n ** 30n;
const GAS_MONEY = toQuantity(10n ** 24n);
const TX_GAS = toQuantity(100_000);
const MAX_FEE = toQuantity(100_000_000_000n);

/**
 * Puts an ERC20 workload on an anvil chain: `blocks` blocks of exactly `transfersPerBlock`
 * transfers and `approvalsPerBlock` approvals, from `senders` accounts to `recipients` accounts.
 *
 * Fast because nothing is signed here: the senders are impersonated (`anvil_impersonateAccount`)
 * and each block is one JSON-RPC batch of `eth_sendTransaction` with explicit nonce and gas (no
 * estimation) ending in `evm_mine`, with automine off; every block's transaction count is checked
 * at the end. The chain's automine setting is
 * restored afterwards. Not for anvil started with a block time (interval mining would split blocks).
 */
export async function makeErc20Workload(client: RpcClient, options: Erc20WorkloadOptions): Promise<Erc20Workload> {
  const random = seededRandom(options.seed ?? 1);
  const senders = deriveAddresses('idx-workload-sender', options.senders);
  const recipients = deriveAddresses('idx-workload-recipient', options.recipients);

  let token = options.token;
  let startBlock: number;
  if (token === undefined) {
    const deployed = await deployErc20(client);
    token = deployed.address;
    startBlock = deployed.blockNumber;
  } else {
    startBlock = hexToNumber(await client.request('eth_blockNumber')) + 1;
  }

  const automine = await client.request<boolean>('anvil_getAutomine');
  await client.request('evm_setAutomine', [false]);
  try {
    await client.batch(
      senders.flatMap((s) => [
        { method: 'anvil_impersonateAccount', params: [s] },
        { method: 'anvil_setBalance', params: [s, GAS_MONEY] },
      ]),
    );
    // the senders may have sent before (a second workload on the same chain)
    const counts = await client.batch([ANVIL_DEV_ACCOUNT, ...senders].map((a) => ({ method: 'eth_getTransactionCount', params: [a, 'pending'] })));
    const mintNonce = hexToNumber(counts[0]);
    const nonces = new Map(senders.map((s, i) => [s, hexToNumber(counts[i + 1])]));
    const nonceOf = (account: string) => {
      const n = nonces.get(account) ?? 0;
      nonces.set(account, n + 1);
      return toQuantity(n);
    };
    const send = (from: string, data: string, nonce: string) => ({
      method: 'eth_sendTransaction',
      params: [{ from, to: token, data, nonce, gas: TX_GAS, maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: '0x1' }],
    });

    // a second workload on the same token (the demo's trickle) mints only to senders running low
    let needMint = senders;
    if (options.token !== undefined) {
      const balances = await client.batch<string>(
        senders.map((s) => ({
          method: 'eth_call',
          params: [{ to: token, data: encodeFunctionData({ abi: testErc20Abi, functionName: 'balanceOf', args: [s as `0x${string}`] }) }, 'latest'],
        })),
      );
      needMint = senders.filter((_, i) => BigInt(balances[i]!) < MINT_AMOUNT / 2n);
    }
    if (needMint.length > 0) {
      await client.batch(
        needMint.map((s, i) =>
          send(
            ANVIL_DEV_ACCOUNT,
            encodeFunctionData({ abi: testErc20Abi, functionName: 'mint', args: [s as `0x${string}`, MINT_AMOUNT] }),
            toQuantity(mintNonce + i),
          ),
        ),
      );
      await client.request('evm_mine');
    }
    const mintBlock = hexToNumber(await client.request('eth_blockNumber'));

    let next = 0;
    const blockCalls = () => {
      const calls = [];
      for (let i = 0; i < options.transfersPerBlock; i++) {
        const from = senders[next++ % senders.length]!;
        const to = recipients[Math.floor(random() * recipients.length)]!;
        const value = BigInt(1 + Math.floor(random() * 1_000_000)) * 10n ** 12n;
        calls.push(send(from, encodeFunctionData({ abi: testErc20Abi, functionName: 'transfer', args: [to as `0x${string}`, value] }), nonceOf(from)));
      }
      for (let i = 0; i < options.approvalsPerBlock; i++) {
        const owner = senders[next++ % senders.length]!;
        const spender = recipients[Math.floor(random() * recipients.length)]!;
        const value = BigInt(Math.floor(random() * 1_000_000)) * 10n ** 12n;
        calls.push(send(owner, encodeFunctionData({ abi: testErc20Abi, functionName: 'approve', args: [spender as `0x${string}`, value] }), nonceOf(owner)));
      }
      return calls;
    };
    // the next block's calls are built while anvil works on the current one
    let inFlight: Promise<unknown> = Promise.resolve();
    for (let b = 0; b < options.blocks; b++) {
      const calls = blockCalls();
      await inFlight;
      // mined once every transaction is in: the client may split a large batch into requests sent side by side
      inFlight = client.batch(calls).then(() => client.request('evm_mine'));
    }
    await inFlight;
    const toBlock = hexToNumber(await client.request('eth_blockNumber'));
    const perBlock = options.transfersPerBlock + options.approvalsPerBlock;
    const txCounts = await client.batch<string>(
      Array.from({ length: options.blocks }, (_, i) => ({ method: 'eth_getBlockTransactionCountByNumber', params: [toQuantity(mintBlock + 1 + i)] })),
    );
    const wrong = txCounts.findIndex((c) => hexToNumber(c) !== perBlock);
    if (toBlock !== mintBlock + options.blocks || wrong !== -1) {
      const detail =
        wrong === -1
          ? `the chain is at block ${toBlock}, expected ${mintBlock + options.blocks}`
          : `block ${mintBlock + 1 + wrong} has ${hexToNumber(txCounts[wrong])} transactions, expected ${perBlock}`;
      throw new IdxError(
        'WORKLOAD_FAILED',
        `the ERC20 workload did not come out as planned: ${detail}. Was something else mining or sending transactions (anvil --block-time)?`,
      );
    }
    return {
      token,
      startBlock,
      mintBlock,
      fromBlock: mintBlock + 1,
      toBlock,
      senders,
      recipients,
      transfers: options.blocks * options.transfersPerBlock,
      approvals: options.blocks * options.approvalsPerBlock,
    };
  } finally {
    await client.request('evm_setAutomine', [automine]);
  }
}

/** Stable, realistic-looking addresses: the last 20 bytes of keccak256(`<prefix>-<i>`). */
function deriveAddresses(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `0x${keccak256(toHex(`${prefix}-${i}`)).slice(-40)}`);
}
