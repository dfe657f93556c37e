import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { buildProject } from '../../apps/cli/build-project.ts';
import { codegen } from '../../apps/cli/codegen.ts';
import type { EvmProjectsWorkload } from '../../devchain/evm-projects-workload.ts';
import { REPO } from './idx-programs.ts';
import { LOCAL_MANIFEST, quietReporter, readReferenceFile, type PreparedFixture, type Reference } from './substrate-projects.ts';
import type { Teardown } from './teardown.ts';

/**
 * The public SubQuery EVM projects of test/fixtures/evm-projects and test/fixtures/evm-starters (their
 * sources unchanged; the folders' READMEs tell where each comes from), with what a test needs to know about each.
 */
export interface EvmFixture {
  name: string;
  /** its folder under test/fixtures (where its reference.json is) */
  folder: string;
  source: { repo: string; path: string; commit: string };
  /** what the project exercises */
  exercises: string;
  /** which of the workload's contracts its first data source indexes (devchain/evm-projects-workload.ts); none when it names no address */
  contract?: keyof EvmProjectsWorkload['addresses'];
  /** the YAML manifest to run, for a project of several (one chain of a multichain project); by default its project.ts */
  manifest?: string;
}

const FIXTURES = join(REPO, 'test', 'fixtures');
/** anvil's chain id */
const LOCAL_CHAIN_ID = '31337';

const STARTERS = { repo: 'subquery/ethereum-subql-starter', commit: 'a600d41c3cbb0c40c1f12420ceeb8424f4bc5958' };

export const EVM_FIXTURES: readonly EvmFixture[] = [
  {
    name: 'ethereum-starter',
    folder: 'evm-starters/ethereum-starter',
    source: { ...STARTERS, path: 'Ethereum/ethereum-starter' },
    exercises:
      'the ERC20 starter most of SubQuery’s EVM starters are (188 of 226 at this commit): a Transfer log handler, an approve call handler ' +
      '(a function filter with parameter names; a failed call too), transaction hashes as ids',
    contract: 'erc20',
  },
  {
    name: 'polygon-starter',
    folder: 'evm-projects/polygon-starter',
    source: { ...STARTERS, path: 'Polygon/polygon-starter' },
    exercises: 'the ERC20 starter with block heights as String fields (blockNumber.toString()), as its EOS and zkSync copies',
    contract: 'erc20',
  },
  {
    name: 'zora-starter',
    folder: 'evm-projects/zora-starter',
    source: { ...STARTERS, path: 'Zora/zora-starter' },
    exercises:
      'the ERC20 starter with Address entities: balanceOf called at the block through a contract made at module load (its address in the source), ' +
      'Promise.all in a handler, saves not awaited, relations',
    contract: 'erc20',
  },
  {
    name: 'ethscriptions',
    folder: 'evm-projects/ethscriptions',
    source: { ...STARTERS, path: 'Ethereum/ethscriptions' },
    exercises:
      'a call handler on a 4-byte function filter (0x64617461, "data") with no address and no ABI: transactions to any account or contract, ' +
      'failed ones too; tx.input decoded by hand, atob on ;base64 data URIs, Date from tx.blockTimestamp',
  },
  {
    name: 'optimism-airdrop',
    folder: 'evm-projects/optimism-airdrop',
    source: { ...STARTERS, path: 'Optimism/optimism-airdrop' },
    exercises: 'daily totals keyed by the ISO day of log.block.timestamp across two days, two claims of one day in a block, an index claimed twice',
    contract: 'claims',
  },
  {
    name: 'base-nft',
    folder: 'evm-projects/base-nft',
    source: { ...STARTERS, path: 'Base/base-nft' },
    exercises: 'a topic filter written with spaces and a newline (" TokensClaimed (uint256 …)\\n"), indexed addresses, a Date field, daily totals',
    contract: 'claims',
  },
  {
    name: 'lukso-starter',
    folder: 'evm-projects/lukso-starter',
    source: { ...STARTERS, path: 'Lukso/lukso-starter' },
    exercises: 'LSP7 Transfer: a bool and a bytes argument, an operator, a uint256 of 2^255, transaction hashes as ids',
    contract: 'claims',
  },
  {
    name: 'pangolin-rewards-tutorial',
    folder: 'evm-projects/pangolin-rewards-tutorial',
    source: { ...STARTERS, path: 'Avalanche/pangolin-rewards-tutorial' },
    exercises: 'ids from log.blockHash and logIndex, lower-cased address ids, a running total updated twice in a block, a derived field',
    contract: 'claims',
  },
  {
    name: 'ethereum-gravatar',
    folder: 'evm-projects/ethereum-gravatar',
    source: { ...STARTERS, path: 'Ethereum/ethereum-gravatar' },
    exercises: 'log handlers with string and address arguments (none indexed), BigNumber.toHexString ids, get-or-create then update, Bytes fields',
    contract: 'gravity',
  },
  {
    name: 'ethereum-chainlink',
    folder: 'evm-projects/ethereum-chainlink',
    source: { ...STARTERS, path: 'Ethereum/ethereum-chainlink' },
    exercises:
      'a data source template instantiated from a handler (createDataFeedDatasource), its logs in the same block, contract calls at the block ' +
      '(typechain factories: description, decimals), indexed int256 arguments (negative), saves not awaited, a package beyond SubQuery’s (abab)',
    contract: 'feedRegistry',
  },
  {
    name: 'ethereum-poap',
    folder: 'evm-projects/ethereum-poap',
    source: { ...STARTERS, path: 'Ethereum/ethereum-poap' },
    exercises:
      'two log handlers whose logs share a transaction (a mint’s Transfer before its EventToken), a topic filter whose parameter names and ' +
      'indexed flags differ from the ABI’s (decoded by the ABI), checksummed address ids, burns, a token never minted',
    contract: 'nfts',
  },
  {
    name: 'crabada-nft',
    folder: 'evm-projects/crabada-nft',
    source: { ...STARTERS, path: 'Avalanche/crabada-nft' },
    exercises:
      'log.transaction.from, a contract call that reverts caught by the mapping (tokenURI), uint8 and uint64 arguments, relations to ' +
      'entities that may not exist, an entity created minimally then replaced in the same transaction, topics without indexed flags',
    contract: 'nfts',
  },
  {
    name: 'polygon-lens',
    folder: 'evm-projects/polygon-lens',
    source: { ...STARTERS, path: 'Polygon/polygon-lens' },
    exercises:
      'uint256[] and bytes[] arguments walked with for…in, string arguments, Promise.all of saves never awaited, log.transaction.hash, ' +
      'topics by type list only, an id shared by two profiles’ posts',
    contract: 'nfts',
  },
  {
    name: 'ethereum-uniswap-v3',
    folder: 'evm-projects/ethereum-uniswap-v3',
    source: { ...STARTERS, path: 'Ethereum/ethereum-uniswap-v3' },
    exercises:
      'Uniswap v3: a pool template instantiated from a handler (its logs in the same block), two data sources, @ethersproject/bignumber ' +
      'arithmetic on decoded arguments (mod, div, negative int256), formatUnits, Float fields (Math.pow, divisions), getByField with a limit, ' +
      'Promise.all of reads and saves of the same entities, contract reads of tuples (positions, ticks) and a revert caught, ' +
      'a factory contract made at module load (its address in the source)',
    contract: 'uniswapFactory',
  },
  {
    name: 'snapshot',
    folder: 'evm-projects/snapshot',
    source: { ...STARTERS, path: 'Multi-Chain/snapshot' },
    exercises:
      'one chain of a multichain project (ethereum.yaml), saves and store.remove never awaited, an entity set and removed in one ' +
      'block, removed a block later and set again, removed without being set; bytes32 ids',
    contract: 'delegates',
    manifest: 'ethereum.yaml',
  },
  {
    name: 'safe',
    folder: 'evm-projects/safe',
    source: { ...STARTERS, path: 'Multi-Chain/safe' },
    exercises:
      'one chain of a multichain project (ethereum.yaml): a data source named per proxy the factory announces, from a template ' +
      'given no address (createGnosisSafeDatasource({ proxyAddress })), a contract read of an address[], log.topics, ' +
      'a handler the manifest names and the mapping does not export (never called), saves never awaited',
    contract: 'safeFactory',
    manifest: 'ethereum.yaml',
  },
  {
    name: 'ethereum-ens',
    folder: 'evm-projects/ethereum-ens',
    source: { ...STARTERS, path: 'Ethereum/ethereum-ens' },
    exercises:
      'ENS: seven data sources (four at an address, three at none: a resolver’s, a controller’s and a name wrapper’s events from ' +
      'any contract), events sharing a name (two TextChanged, three NameRegistered, two NameRenewed, two Transfer), topics ' +
      'written with spaces, one log taken by two data sources, ids from keccak256 of Buffers, Uint8Array.toString() ids, ' +
      'new Buffer and Buffer.concat, positional args (event.args[2]), an indexed string, new Entity(id) saved, [BigInt] and ' +
      '[String] fields grown, store.remove, logger.warn with arguments',
    contract: 'ensRegistry',
  },
  {
    name: 'ethereum-opensea',
    folder: 'evm-projects/ethereum-opensea',
    source: { ...STARTERS, path: 'Ethereum/ethereum-opensea' },
    exercises:
      'OpenSea (Seaport): arrays of tuples decoded with named fields (offer[i].itemType, .token, .amount), a topic with a ' +
      'trailing newline, the chainId global, transaction.input’s selector, contract calls that answer, revert or reach an ' +
      'account (caught), Float fields (sums, Math.min/max, 0/0), ids from fractional days, new Entity(id) saved, saves not ' +
      'awaited, enums, sales skipped by the mapping’s own address comparisons',
    contract: 'seaport',
  },
  {
    name: 'sqt-holders',
    folder: 'evm-projects/sqt-holders',
    source: { ...STARTERS, path: 'Multi-Chain/sqt-holders' },
    exercises:
      'one chain of a multichain project (ethereum.yaml): balances recomputed from getByField reads of a relation with a limit ' +
      '(Transfer.getByAccountFromId), which must see the transfers saved earlier in the block as well as those already written, ' +
      'several transfers in a block, a transfer to oneself (one account read twice and saved twice at once), a topic folded ' +
      'over two YAML lines',
    contract: 'erc20',
    manifest: 'ethereum.yaml',
  },
];

/**
 * A copy of the fixture as its user has it after `npm install` (node_modules resolving to idx's own
 * packages), then `idx codegen` and `idx build` run in it (in this process, as the CLI runs them), and
 * its manifest pointed at the local chain as a user testing locally points it (see localEvmManifest).
 * Throws the build's error when it fails.
 */
export async function prepareEvmFixture(t: Teardown, fixture: EvmFixture, endpoint: string, workload: EvmProjectsWorkload): Promise<PreparedFixture> {
  const parent = await mkdtemp(join(tmpdir(), 'idx-evm-project-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const dir = join(parent, fixture.name);
  await copyEvmFixture(fixture, dir);
  await symlink(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const reporter = quietReporter();
  await codegen({ location: dir, reporter });
  const built = await buildProject({ location: fixture.manifest === undefined ? dir : join(dir, fixture.manifest), reporter });
  const manifest = join(dir, LOCAL_MANIFEST);
  const source = fixture.manifest === undefined ? built.manifest! : join(dir, fixture.manifest);
  await writeFile(manifest, localEvmManifest(await readFile(source, 'utf8'), endpoint, contractOf(fixture, workload), workload.startBlock));
  return { dir, manifest };
}

/**
 * The manifest text pointed at the local chain: chainId anvil's, endpoint the local node, the first
 * data source at the workload's contract (when it names one), every data source from the workload's first block, no
 * dictionary and no bypassed blocks. Templates keep no address, as they are written.
 */
export function localEvmManifest(text: string, endpoint: string, address: string | undefined, startBlock: number): string {
  const manifest = parse(text) as { network?: Record<string, unknown>; dataSources?: { startBlock?: number; options?: Record<string, unknown> }[] };
  manifest.network = { chainId: LOCAL_CHAIN_ID, endpoint };
  for (const [i, ds] of (manifest.dataSources ?? []).entries()) {
    ds.startBlock = startBlock;
    if (i === 0 && address !== undefined) ds.options = { ...ds.options, address };
  }
  // no folding of long lines: a folded string whose first line is indented more keeps its line breaks (base-nft's topic)
  return stringify(manifest, { lineWidth: 0 });
}

/** the address the fixture's first data source is pointed at, if any */
export const contractOf = (fixture: EvmFixture, workload: EvmProjectsWorkload): string | undefined =>
  fixture.contract === undefined ? undefined : workload.addresses[fixture.contract];

/** a fresh copy of the fixture's sources, without its reference */
export async function copyEvmFixture(fixture: EvmFixture, dir: string): Promise<void> {
  await cp(join(FIXTURES, fixture.folder), dir, { recursive: true, filter: (src) => !src.endsWith('reference.json') });
}

export function evmReferencePath(fixture: EvmFixture): string {
  return join(FIXTURES, fixture.folder, 'reference.json');
}

export async function readEvmReference(fixture: EvmFixture): Promise<Reference | undefined> {
  return readReferenceFile(evmReferencePath(fixture));
}
