import { encodeAbiParameters, parseAbiParameters } from 'viem/utils';
import type { RpcClient } from '../infra/rpc/create-rpc-client.ts';
import { hexToNumber } from '../infra/rpc/hex-quantity.ts';
import { testCollectionAbi, testCollectionBytecode } from './contracts/test-collection.artifact.ts';
import { testSeaportAbi, testSeaportBytecode } from './contracts/test-seaport.artifact.ts';
import { deployedAt, placeContract } from './deploy-contract.ts';

/** Seaport 1.1, where SubQuery's ethereum-opensea starter's manifest and source (`MARKETPLACE_ADDRESS`) find it. */
export const SEAPORT_ADDRESS = '0x00000000006c3852cbef3e08e8df289169ede581';

const ZERO = '0x0000000000000000000000000000000000000000';
/** OpenSea's fee collector as the starter writes it (checksummed: ethers' decoded addresses equal it) */
const FEE_COLLECTOR = '0x0000a26b00c1F0DF003000390027140000fAa719';
/** OpenSea's wallet as the starter writes it (lower case: never equal to a decoded address, so never a fee) */
const OPENSEA_WALLET = '0x5b3256965e7c3cf26e11fcaf296dfc8807c01073';
/** WETH as the starter compares it (lower case: a decoded WETH never equals it, so every WETH sale is skipped) */
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const [NATIVE, ERC20, ERC721, ERC1155, ERC721_WITH_CRITERIA] = [0, 1, 2, 3, 4];
/** the fulfilment methods the starter tells apart by the transaction's selector, and one it does not know */
const SELECTOR = {
  fulfillBasicOrder: '0xfb0f3ee1',
  fulfillOrder: '0xb3a34c4c',
  fulfillAdvancedOrder: '0xe7acab24',
  fulfillAvailableOrders: '0xed98a574',
  fulfillAvailableAdvancedOrders: '0x87201b41',
  matchOrders: '0xa8174404',
  matchAdvancedOrders: '0x55944a42',
  unknown: '0x12345678',
} as const;
const ORDER_FULFILLED = parseAbiParameters(
  'bytes32, address, address, address, (uint8, address, uint256, uint256)[], (uint8, address, uint256, uint256, address)[]',
);
const E18 = 10n ** 18n;
// (the addresses are plain strings here: viem's types want `0x${string}`)
const encodeOrderFulfilled = (values: readonly unknown[]) =>
  encodeAbiParameters(ORDER_FULFILLED, values as Parameters<typeof encodeAbiParameters<typeof ORDER_FULFILLED>>[1]);

type Spent = readonly [type: number, token: string, id: bigint, amount: bigint];
type Received = readonly [type: number, token: string, id: bigint, amount: bigint, recipient: string];

/**
 * OpenSea (Seaport): asks and bids of ERC721 and ERC1155 tokens through each fulfilment method, with fees to OpenSea
 * and royalties or without, a bundle, sales the starter skips (WETH, another ERC20, an empty side, two collections), a
 * collection whose name reverts and one with no code at all, a resale, a sale for nothing (a royalty of 0/0), and the
 * next day's sales (its daily snapshots keyed by a fractional day).
 */
export async function runOpensea(client: RpcClient, accounts: string[]): Promise<void> {
  const mine = () => client.request('evm_mine');
  await placeContract(client, SEAPORT_ADDRESS, 'TestSeaport', testSeaportAbi, testSeaportBytecode);
  const collection = (args: unknown[]) => deployedAt(client, 'TestCollection', testCollectionAbi, testCollectionBytecode, args);
  const apes = await collection(['Apes ✓', 'APE', 10_000n, '0x80ac58cd']);
  // an ERC1155 whose name and symbol revert, and a "collection" that is an account
  const items = await collection(['', '', 5n, '0xd9b67a26']);
  const account = accounts[9]!;
  let order = 0;
  const fulfil = (from: number, selector: string, offerer: string, recipient: string, offer: Spent[], consideration: Received[]) =>
    client.request('eth_sendTransaction', [
      {
        from: accounts[from],
        to: SEAPORT_ADDRESS,
        gas: '0x100000',
        data: selector + encodeOrderFulfilled([`0x${(++order).toString(16).padStart(64, '0')}`, offerer, ZERO, recipient, offer, consideration]).slice(2),
      },
    ]);
  const [seller, buyer, bidder, taker, creator, other] = [accounts[1]!, accounts[2]!, accounts[3]!, accounts[4]!, accounts[7]!, accounts[6]!];

  // an ask with a fee and a royalty, a bid of ether for ERC1155 tokens, a bundle with neither fee nor royalty
  await fulfil(
    1,
    SELECTOR.fulfillBasicOrder,
    seller,
    buyer,
    [[ERC721, apes, 1n, 1n]],
    [
      [NATIVE, ZERO, 0n, 9n * E18, seller],
      [NATIVE, ZERO, 0n, E18 / 4n, FEE_COLLECTOR],
      [NATIVE, ZERO, 0n, E18 / 2n, creator],
    ],
  );
  await fulfil(
    3,
    SELECTOR.fulfillOrder,
    bidder,
    taker,
    [[NATIVE, ZERO, 0n, 2n * E18]],
    [
      [ERC1155, items, 5n, 3n, bidder],
      [NATIVE, ZERO, 0n, E18 / 20n, FEE_COLLECTOR],
    ],
  );
  await fulfil(
    1,
    SELECTOR.fulfillAvailableOrders,
    seller,
    buyer,
    [
      [ERC721, apes, 2n, 1n],
      [ERC721, apes, 3n, 1n],
    ],
    [[NATIVE, ZERO, 0n, 3n * E18, seller]],
  );
  await mine();
  // skipped: WETH (decoded checksummed), another ERC20, an empty offer, an empty consideration, two collections
  await fulfil(2, SELECTOR.fulfillOrder, buyer, seller, [[ERC20, WETH, 0n, E18]], [[ERC721, apes, 4n, 1n, buyer]]);
  await fulfil(2, SELECTOR.fulfillOrder, seller, buyer, [[ERC721, apes, 4n, 1n]], [[ERC20, apes, 0n, E18, seller]]);
  await fulfil(2, SELECTOR.fulfillOrder, seller, buyer, [], [[NATIVE, ZERO, 0n, E18, seller]]);
  await fulfil(2, SELECTOR.fulfillOrder, seller, buyer, [[ERC721, apes, 4n, 1n]], []);
  await fulfil(
    2,
    SELECTOR.fulfillOrder,
    seller,
    buyer,
    [
      [ERC721, apes, 4n, 1n],
      [ERC1155, items, 6n, 1n],
    ],
    [[NATIVE, ZERO, 0n, E18, seller]],
  );
  // an account's "collection" by criteria (every call fails), OpenSea's wallet paid as a royalty, the method the starter misses
  await fulfil(
    5,
    SELECTOR.matchAdvancedOrders,
    account,
    other,
    [[ERC721_WITH_CRITERIA, account, 7n, 1n]],
    [
      [NATIVE, ZERO, 0n, E18, account],
      [NATIVE, ZERO, 0n, E18 / 100n, OPENSEA_WALLET],
    ],
  );
  // a resale by a method the starter does not know
  await fulfil(
    2,
    SELECTOR.unknown,
    buyer,
    other,
    [[ERC721, apes, 1n, 1n]],
    [
      [NATIVE, ZERO, 0n, 12n * E18, buyer],
      [NATIVE, ZERO, 0n, E18 / 3n, FEE_COLLECTOR],
    ],
  );
  await mine();
  // the next day: a resale, a bid by the advanced method, and a sale for nothing
  const { timestamp } = await client.request<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
  await client.request('evm_setNextBlockTimestamp', [hexToNumber(timestamp) + 86_400]);
  await fulfil(2, SELECTOR.matchOrders, buyer, seller, [[ERC721, apes, 2n, 1n]], [[NATIVE, ZERO, 0n, E18 + 1n, buyer]]);
  await fulfil(6, SELECTOR.fulfillAdvancedOrder, other, taker, [[NATIVE, ZERO, 0n, 7n]], [[ERC1155, items, 5n, 2n, other]]);
  await fulfil(4, SELECTOR.fulfillAvailableAdvancedOrders, taker, other, [[ERC1155, items, 8n, 1n]], [[NATIVE, ZERO, 0n, 0n, taker]]);
  await mine();
}
