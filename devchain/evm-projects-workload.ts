import type { Abi } from 'viem';
import { encodeFunctionData } from 'viem/utils';
import type { RpcClient } from '../infra/rpc/create-rpc-client.ts';
import { hexToNumber } from '../infra/rpc/hex-quantity.ts';
import { testAggregatorAbi, testAggregatorBytecode } from './contracts/test-aggregator.artifact.ts';
import { testClaimsAbi, testClaimsBytecode } from './contracts/test-claims.artifact.ts';
import { testDelegatesAbi, testDelegatesBytecode } from './contracts/test-delegates.artifact.ts';
import { testErc20Abi, testErc20Bytecode } from './contracts/test-erc20.artifact.ts';
import { testFeedRegistryAbi, testFeedRegistryBytecode } from './contracts/test-feed-registry.artifact.ts';
import { testGravityAbi, testGravityBytecode } from './contracts/test-gravity.artifact.ts';
import { testNftsAbi, testNftsBytecode } from './contracts/test-nfts.artifact.ts';
import { testSafeFactoryAbi, testSafeFactoryBytecode } from './contracts/test-safe-factory.artifact.ts';
import { testSafeAbi, testSafeBytecode } from './contracts/test-safe.artifact.ts';
import { testPositionManagerAbi, testPositionManagerBytecode } from './contracts/test-position-manager.artifact.ts';
import { testUniFactoryAbi, testUniFactoryBytecode } from './contracts/test-uni-factory.artifact.ts';
import { testUniPoolAbi, testUniPoolBytecode } from './contracts/test-uni-pool.artifact.ts';
import { deployContract, deployedAt, placeContract } from './deploy-contract.ts';
import { ENS_ADDRESSES, runEns } from './ens-workload.ts';
import { runOpensea, SEAPORT_ADDRESS } from './opensea-workload.ts';
import type { AnvilOptions } from './start-anvil.ts';

/**
 * One reproducible anvil chain for the public EVM projects of test/fixtures/evm-projects: the
 * contracts their data sources name (stand-ins with the same events and calls, devchain/contracts)
 * and the calls that exercise their handlers. Every run gives the same blocks and hashes: the chain
 * starts at a fixed time (these options), every block is 12 s after the last, and the transactions
 * are sent from anvil's dev accounts in a fixed order.
 */
export const EVM_PROJECTS_ANVIL: AnvilOptions = { args: ['--timestamp', String(Date.UTC(2024, 0, 1) / 1000)] };

export interface EvmProjectsWorkload {
  /** the contract each project's first data source indexes, by project */
  addresses: Record<
    'gravity' | 'feedRegistry' | 'erc20' | 'claims' | 'nfts' | 'uniswapFactory' | 'delegates' | 'safeFactory' | 'ensRegistry' | 'seaport',
    string
  >;
  /** the block of the first deployment: the data sources' start */
  startBlock: number;
  lastBlock: number;
  lastHash: string;
}

const ZERO = '0x0000000000000000000000000000000000000000';
// the assets and the denomination of the price feeds (any addresses do)
const ETH = '0x00000000000000000000000000000000000000e7';
const BTC = '0x000000000000000000000000000000000000bbbb';
const USD = '0x0000000000000000000000000000000000000348';
/**
 * The ERC20 token's address: where SubQuery's Zora starter finds its token, named in its source
 * (`src/const.ts`, WETH's predeploy) and not only in its manifest; the token's code is put there.
 */
export const ERC20_ADDRESS = '0x4200000000000000000000000000000000000006';
/**
 * Uniswap v3's factory and position manager, where SubQuery's ethereum-uniswap-v3 starter finds them: the
 * factory named in its source (`FACTORY_ADDRESS`, read through a contract made at module load), the position
 * manager in its manifest's second data source.
 */
export const UNISWAP_FACTORY_ADDRESS = '0x1F98431c8aD98523631AE4a59f267346ea31F984';
const POSITION_MANAGER_ADDRESS = '0xC36442b4a4522E871399CD717aBDD847Ab11FE88';

/** Runs the workload on a fresh chain started with EVM_PROJECTS_ANVIL. */
export async function runEvmProjectsWorkload(client: RpcClient): Promise<EvmProjectsWorkload> {
  await client.request('anvil_setBlockTimestampInterval', [12]);
  await client.request('evm_setAutomine', [false]);
  const accounts = await client.request<string[]>('eth_accounts');
  const deploy = (name: string, abi: Abi, bytecode: `0x${string}`, args: unknown[] = []) => deployContract(client, { name, abi, bytecode, args });
  const gravity = await deploy('TestGravity', testGravityAbi, testGravityBytecode);
  const registry = await deploy('TestFeedRegistry', testFeedRegistryAbi, testFeedRegistryBytecode);
  const [ethUsd, btcUsd, unnamed] = [
    await deploy('TestAggregator', testAggregatorAbi, testAggregatorBytecode, ['ETH / USD', 8]),
    await deploy('TestAggregator', testAggregatorAbi, testAggregatorBytecode, ['BTC/USD', 18]),
    // no description and no decimals: the starter's `if (description)` and `if (decimals)` take the other way
    await deploy('TestAggregator', testAggregatorAbi, testAggregatorBytecode, ['', 0]),
  ].map((c) => c.address) as [string, string, string];

  const send = (from: number, to: string, abi: Abi, functionName: string, args: unknown[], gas = '0x100000') =>
    client.request('eth_sendTransaction', [
      { from: accounts[from], to, gas, data: encodeFunctionData({ abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]) },
    ]);
  const gravatar = (from: number, fn: string, ...args: string[]) => send(from, gravity.address, testGravityAbi, fn, args);
  const confirm = (asset: string, latest: string, previous: string, phase: number) =>
    send(0, registry.address, testFeedRegistryAbi, 'confirmFeed', [asset, USD, latest, previous, phase]);
  const answer = (aggregator: string, current: bigint, round: bigint) => send(1, aggregator, testAggregatorAbi, 'update', [current, round]);
  const mine = () => client.request('evm_mine');
  const claims = await deploy('TestClaims', testClaimsAbi, testClaimsBytecode);
  const claim = (from: number, fn: string, args: unknown[]) => send(from, claims.address, testClaimsAbi, fn, args);
  await placeContract(client, ERC20_ADDRESS, 'TestErc20', testErc20Abi, testErc20Bytecode, ['Wrapped Ether', 'WETH']);
  const token = (from: number, fn: string, args: unknown[], gas?: string) => send(from, ERC20_ADDRESS, testErc20Abi, fn, args, gas);
  const UNIT = 10n ** 18n;
  // a transaction whose input is text (an ethscription when it is a data: URI), to an account or a contract
  const inscribe = (from: number, to: string, text: string) =>
    client.request('eth_sendTransaction', [{ from: accounts[from], to, gas: '0x100000', data: `0x${Buffer.from(text, 'utf8').toString('hex')}` }]);

  // gravatars: created, renamed, re-imaged (twice in a block), a failing update, strings of every kind
  await gravatar(1, 'createGravatar', 'Alice', 'https://example.com/a.png');
  await gravatar(2, 'createGravatar', 'Bob', '');
  await gravatar(3, 'createGravatar', '', 'ipfs://x');
  // a price from an aggregator no feed names yet: no data source indexes it
  await answer(ethUsd, 100n, 1n);
  // tokens minted (Transfer from the zero address), a transfer and an approval (a call handler's function)
  for (const to of [1, 2, 3]) await token(0, 'mint', [accounts[to], 100n * UNIT]);
  await token(1, 'transfer', [accounts[2], 5n * UNIT]);
  await token(1, 'approve', [accounts[4], 50n * UNIT]);
  await inscribe(7, accounts[8]!, 'data:,Hello ethscriptions');
  await inscribe(7, accounts[9]!, 'data:text/plain;base64,aGVsbG8gd29ybGQ=');
  // airdrop claims (two in a block, one day's total), an NFT drop's claims, LSP7 transfers forced or not, with data
  await claim(1, 'claim', [0n, accounts[1], 5n * UNIT]);
  await claim(2, 'claim', [1n, accounts[2], 7n]);
  await claim(3, 'claimTokens', [0n, accounts[3], 0n, 3n]);
  await claim(1, 'lsp7Transfer', [accounts[1], accounts[2], 10n, true, '0x']);
  await claim(2, 'lsp7Transfer', [ZERO, accounts[3], 2n ** 255n, false, '0xdeadbeef00']);
  // staking rewards: one user paid twice in a block (a running total), ids from the block hash and log index
  await claim(0, 'payReward', [accounts[1], 3n]);
  await claim(0, 'payReward', [accounts[1], 4n]);
  await claim(0, 'payReward', [accounts[2], 10n ** 21n]);
  await mine();
  await gravatar(1, 'updateGravatarName', 'Alice II');
  await gravatar(2, 'updateGravatarImage', 'https://example.com/b.png');
  await gravatar(3, 'updateGravatarName', 'Carol');
  await gravatar(3, 'updateGravatarName', 'Carol 2');
  // the feed and its first price in one block: the data source made by the first serves the second
  await confirm(ETH, ethUsd, ZERO, 1);
  await answer(ethUsd, 2000n * 10n ** 8n, 2n);
  await mine();
  await mine();
  await gravatar(4, 'createGravatar', 'Dave ✓ 日本語 😀', 'data:,'.padEnd(3000, 'x'));
  await gravatar(4, 'updateGravatarImage', 'img2');
  await gravatar(5, 'updateGravatarName', 'nobody'); // reverts: no gravatar
  // transfers from a spender, of nothing, to oneself, one that fails (more than the balance), and an
  // approval that runs out of gas (a failed transaction calling the handler's function)
  await token(4, 'transferFrom', [accounts[1], accounts[5], 20n * UNIT]);
  await token(2, 'transfer', [accounts[3], 0n]);
  await token(3, 'transfer', [accounts[3], UNIT]);
  await token(5, 'transfer', [accounts[1], 1000n * UNIT]);
  await token(2, 'approve', [accounts[4], 1n], '0x6000');
  // not base64 after ;base64, no comma, a NUL and UTF-8 beyond ASCII, and one to a contract (which reverts)
  await inscribe(8, accounts[7]!, 'data:image/svg+xml;base64,!!not base64!!');
  await inscribe(9, accounts[7]!, 'data:no comma here');
  await inscribe(8, accounts[9]!, 'data:,caf\u00e9 \u0000 \u2713 \u{1F600}');
  await inscribe(9, gravity.address, 'data:application/json,{"p":"erc-20","op":"mint"}');
  await answer(ethUsd, -5n, 3n);
  await confirm(BTC, btcUsd, ZERO, 1);
  await mine();
  await gravatar(1, 'updateGravatarImage', 'https://example.com/a2.png');
  await gravatar(6, 'createGravatar', 'O\'Brien "quoted" \\ back', 'tab\there\nnewline');
  await answer(btcUsd, 10n ** 30n, 1n);
  await mine();
  // the ETH feed moves to another aggregator, which then answers twice in one transaction
  await confirm(ETH, unnamed, ethUsd, 2);
  await mine();
  await send(2, unnamed, testAggregatorAbi, 'updateTwice', [7n, 8n, 1n]);
  await answer(ethUsd, 1n, 4n);
  await gravatar(2, 'updateGravatarName', 'Bob');
  await token(2, 'approve', [accounts[4], 0n]);
  await token(2, 'transfer', [accounts[6], 7n]);
  await inscribe(7, accounts[8]!, 'data:text/html;charset=utf-8;base64,PGgxPmhpPC9oMT4=');
  await claim(3, 'claim', [2n, accounts[3], 0n]);
  await claim(4, 'claimTokens', [1n, accounts[4], 3n, 1n]);
  await claim(4, 'claimTokens', [1n, accounts[5], 4n, 2n]);
  await mine();
  // the ETH feed retired; its old aggregator still answers
  await confirm(ETH, ZERO, ethUsd, 3);
  await mine();
  await answer(ethUsd, 2n, 5n);
  // from an account that has held tokens since a later block than the first the handlers ran on
  await token(5, 'transfer', [accounts[6], UNIT]);
  await answer(unnamed, 9n, 3n);
  await mine();
  // a day later: the daily totals of the airdrop and the NFT drop begin again; an index claimed twice
  const { timestamp } = await client.request<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
  await client.request('evm_setNextBlockTimestamp', [hexToNumber(timestamp) + 86_400]);
  await claim(1, 'claim', [3n, accounts[1], 1n]);
  await claim(2, 'claim', [3n, accounts[2], 2n]);
  await claim(5, 'claimTokens', [2n, accounts[5], 6n, 10n]);
  await claim(0, 'payReward', [accounts[1], 0n]);
  await mine();
  await mine();
  // NFTs: POAPs, crabs and Lens profiles minted; the mint's Transfer comes before its EventToken or NewCrab
  const nfts = await deploy('TestNfts', testNftsAbi, testNftsBytecode);
  const nft = (from: number, fn: string, args: unknown[]) => send(from, nfts.address, testNftsAbi, fn, args);
  await nft(0, 'mintToken', [1n, accounts[1], 1n]);
  await nft(0, 'mintToken', [1n, accounts[2], 2n]);
  await nft(0, 'mintToken', [7n, accounts[1], 3n]);
  // a crab whose tokenURI answers, then one whose parents are the first and one never minted, and whose tokenURI reverts
  await nft(0, 'mintCrab', [accounts[1], 1n, 0n, 0n, 2n ** 200n + 5n, 2n ** 40n + 1n, 0, 'ipfs://crab-1']);
  await nft(0, 'mintCrab', [accounts[2], 2n, 1n, 99n, 0n, 1_700_000_000n, 255, '']);
  await nft(1, 'createProfile', [1n, accounts[1], 'alice.lens', 'ipfs://alice.png', 'ipfs://alice-follow']);
  await nft(2, 'createProfile', [2n, accounts[3], '', '', '']);
  await mine();
  // transfers: a POAP passed on, one burnt, one never minted here; a crab passed on and one never minted here
  await nft(1, 'transfer', [accounts[1], accounts[2], 1n]);
  await nft(2, 'transfer', [accounts[2], ZERO, 2n]);
  await nft(3, 'transfer', [accounts[3], accounts[4], 9n]);
  await nft(1, 'transfer', [accounts[1], accounts[3], 1n]);
  // posts (two profiles' first publications share one pubId), follows of two profiles, of none, and of one twice
  await nft(1, 'post', [1n, 1n, 'ipfs://post-1', '0x']);
  await nft(3, 'post', [2n, 1n, 'ar://post-2', '0xdead']);
  await nft(3, 'follow', [
    [1n, 2n],
    ['0x', '0x01'],
  ]);
  await nft(4, 'follow', [[], []]);
  await nft(5, 'follow', [
    [2n, 2n],
    ['0x', '0x'],
  ]);
  await nft(2, 'createProfile', [3n, accounts[2], 'bob ✓', 'data:,'.padEnd(300, 'y'), 'ipfs://bob-follow']);
  await mine();
  await runUniswap(client, accounts, send);
  const delegates = await runDelegations(client, accounts, send);
  const safeFactory = await runSafes(client, send);
  await runEns(client, accounts, send);
  await runOpensea(client, accounts);
  const last = await client.request<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]);
  // anvil calls a block final 64 blocks behind the head, and both nodes index final blocks only
  await client.request('anvil_mine', ['0x40']);
  return {
    addresses: {
      gravity: gravity.address,
      feedRegistry: registry.address,
      erc20: ERC20_ADDRESS,
      claims: claims.address,
      nfts: nfts.address,
      uniswapFactory: UNISWAP_FACTORY_ADDRESS,
      delegates,
      safeFactory,
      ensRegistry: ENS_ADDRESSES.registry,
      seaport: SEAPORT_ADDRESS,
    },
    startBlock: gravity.blockNumber,
    lastBlock: hexToNumber(last.number),
    lastHash: last.hash,
  };
}

export type Send = (from: number, to: string, abi: Abi, functionName: string, args: unknown[], gas?: string) => Promise<unknown>;

/** A short text as a bytes32 (its UTF-8, padded with zeros). */
const bytes32Of = (text: string) => `0x${Buffer.from(text, 'utf8').toString('hex').padEnd(64, '0')}`;

/**
 * Uniswap v3: pools created (their template's logs in the same block), initialised, minted into, swapped (across
 * ticks, up and down, negative amounts), flashed and burnt, positions minted, changed, collected and passed on, one
 * never minted, and a pool created after the first block the starter handled (its module-level factory contract
 * still reads that block, as on SubQuery).
 */
async function runUniswap(client: RpcClient, accounts: string[], send: Send): Promise<void> {
  const mine = () => client.request('evm_mine');
  await placeContract(client, UNISWAP_FACTORY_ADDRESS, 'TestUniFactory', testUniFactoryAbi, testUniFactoryBytecode);
  await placeContract(client, POSITION_MANAGER_ADDRESS, 'TestPositionManager', testPositionManagerAbi, testPositionManagerBytecode);
  const tokenA = await deployedAt(client, 'TestErc20', testErc20Abi, testErc20Bytecode, ['Token A', 'TKA']);
  const tokenB = await deployedAt(client, 'TestErc20', testErc20Abi, testErc20Bytecode, ['Token B', 'TKB']);
  const newPool = () => deployedAt(client, 'TestUniPool', testUniPoolAbi, testUniPoolBytecode);
  const [pool1, pool2, pool3] = [await newPool(), await newPool(), await newPool()];
  const factory = (fn: string, args: unknown[]) => send(0, UNISWAP_FACTORY_ADDRESS, testUniFactoryAbi, fn, args);
  const pool = (from: number, address: string, fn: string, args: unknown[]) => send(from, address, testUniPoolAbi, fn, args);
  const positions = (from: number, fn: string, args: unknown[]) => send(from, POSITION_MANAGER_ADDRESS, testPositionManagerAbi, fn, args);
  const E18 = 10n ** 18n;
  const Q96 = 2n ** 96n;

  // two pools created; the first initialised in the same block
  await factory('createPool', [tokenA, tokenB, 3000, 60, pool1]);
  await factory('createPool', [tokenB, ERC20_ADDRESS, 500, 10, pool2]);
  await pool(1, pool1, 'initialize', [2n * Q96, 180]);
  await mine();
  // liquidity minted into both, a position minted and passed on
  await pool(1, pool1, 'mint', [accounts[1], -120, 120, E18, 5n * E18, 3n * E18, 1000n]);
  await pool(2, pool2, 'initialize', [Q96, -5]);
  await pool(2, pool2, 'mint', [accounts[2], -10, 10, 7n * E18, 2n * E18, 9n * E18, 5n]);
  await positions(1, 'mint', [1n, accounts[1], tokenA, tokenB, 3000, -120, 120, E18]);
  await positions(1, 'transfer', [accounts[1], accounts[2], 1n]);
  await mine();
  // swaps down across a tick and up with a negative remainder, a flash, the position changed and collected, a token id never minted
  await pool(3, pool1, 'swap', [accounts[3], 2n * E18, -(3n * E18), (3n * Q96) / 2n, E18, -60, 2n ** 130n, 7n]);
  await pool(3, pool2, 'swap', [accounts[4], -(E18 / 2n), 4n * E18, (5n * Q96) / 4n, 7n * E18, 25, 1n, 2n]);
  await pool(4, pool1, 'flash', [accounts[4], 10n * E18, E18, 2n ** 131n, 8n]);
  await positions(2, 'increase', [1n, E18 / 2n, 4n * E18, E18]);
  await positions(2, 'decrease', [1n, E18 / 4n, 2n * E18, 3n * E18]);
  await positions(2, 'collect', [1n, accounts[2], 3n * E18, 0n]);
  await positions(3, 'increase', [99n, E18, E18, E18]);
  await pool(1, pool1, 'burn', [-120, 120, E18 / 2n, E18, 2n * E18]);
  // a pool created now: the starter's factory contract, made at module load, reads the first block it handled
  await factory('createPool', [tokenA, ERC20_ADDRESS, 10000, 200, pool3]);
  await pool(1, pool3, 'initialize', [3n * Q96, 400]);
  await positions(1, 'mint', [2n, accounts[3], tokenA, ERC20_ADDRESS, 10000, -200, 200, 3n * E18]);
  await mine();
  await positions(2, 'transfer', [accounts[2], accounts[5], 1n]);
  await pool(5, pool3, 'mint', [accounts[5], -200, 200, E18, E18, E18, 9n]);
  await pool(5, pool3, 'swap', [accounts[5], E18, -E18, 3n * Q96, E18, 399, 3n, 4n]);
  await mine();
}

/**
 * Snapshot delegations: set and cleared in one block (the starter neither awaits its save nor its remove), cleared a
 * block later, cleared and set again in one block, set twice, and cleared without ever being set. Returns the
 * registry's address.
 */
async function runDelegations(client: RpcClient, accounts: string[], send: Send): Promise<string> {
  const mine = () => client.request('evm_mine');
  const registry = await deployedAt(client, 'TestDelegates', testDelegatesAbi, testDelegatesBytecode);
  const delegate = (from: number, fn: 'setDelegate' | 'clearDelegate', space: string, to: number) =>
    send(from, registry, testDelegatesAbi, fn, [bytes32Of(space), accounts[to]]);
  await delegate(1, 'setDelegate', 'snapshot.eth', 2);
  await delegate(1, 'setDelegate', 'ens.eth', 3);
  await delegate(2, 'setDelegate', '', 1);
  await delegate(3, 'setDelegate', 'snapshot.eth', 4);
  await delegate(3, 'clearDelegate', 'snapshot.eth', 4);
  await mine();
  await delegate(1, 'clearDelegate', 'snapshot.eth', 2);
  await delegate(4, 'clearDelegate', 'never.eth', 5);
  await delegate(1, 'setDelegate', 'ens.eth', 3);
  await mine();
  // (not set again in a later block once cleared: @subql/node-ethereum then closes the cleared version at the block
  // it is set again in, or at the clear, as its cache flushes fall; docs/testing.md)
  await delegate(2, 'clearDelegate', '', 1);
  await delegate(2, 'setDelegate', '', 1);
  await mine();
  return registry;
}

/**
 * Gnosis Safes: proxies announced by the factory (the starter then makes a data source of its template for each,
 * with no `address` among the template's arguments), and messages signed by a safe before and after it is announced,
 * in its announcing block, and by a safe never announced. Returns the factory's address.
 */
async function runSafes(client: RpcClient, send: Send): Promise<string> {
  const mine = () => client.request('evm_mine');
  const factory = await deployedAt(client, 'TestSafeFactory', testSafeFactoryAbi, testSafeFactoryBytecode);
  const newSafe = () => deployedAt(client, 'TestSafe', testSafeAbi, testSafeBytecode);
  const [safeA, safeB, safeC] = [await newSafe(), await newSafe(), await newSafe()];
  const sign = (from: number, safe: string, text: string) => send(from, safe, testSafeAbi, 'signMessage', [bytes32Of(text)]);
  await sign(1, safeB, 'before any safe is announced');
  await send(0, factory, testSafeFactoryAbi, 'createProxy', [safeA]);
  await sign(1, safeA, 'in the announcing block');
  await mine();
  await sign(2, safeB, 'before it is announced');
  await sign(3, safeC, 'never announced');
  await send(0, factory, testSafeFactoryAbi, 'createProxy', [safeB]);
  await sign(2, safeB, 'after it is announced');
  await mine();
  await sign(3, safeC, 'never announced, later');
  await sign(1, safeA, 'again');
  await mine();
  return factory;
}
