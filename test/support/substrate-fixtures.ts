/**
 * The public SubQuery Substrate projects of test/fixtures/substrate-projects (their sources unchanged;
 * test/fixtures/substrate-projects/README.md tells where each comes from), with what a test needs to
 * know about each: the manifest it is run from, the packages its build needs beyond idx's own, and
 * why it cannot run here when it cannot.
 */
export interface SubstrateFixture {
  /** its folder under test/fixtures/substrate-projects */
  name: string;
  /** the manifest it runs from (a project.ts is first built to dist/project.yaml, as `idx build` does) */
  manifest: string;
  source: { repo: string; path: string; commit: string };
  /** what the project exercises */
  exercises: string;
  /**
   * npm packages its build needs that idx does not depend on, as its users install them (the newest
   * version its package.json allows); until they are devDependencies of idx, the test expects its build
   * to fail naming the first of them, and the reference is recorded with them installed aside (IDX_FIXTURE_DEPS)
   */
  needs?: string[];
  /** why the project cannot be built or compared here at all, if it cannot */
  cannot?: string;
  /**
   * what differs from @subql/node today, and why (known idx defects, see DIFFERS): the test still
   * runs the comparison and prints those differences, as todos until they are fixed; any other
   * difference fails it
   */
  differs?: KnownDifference[];
}

/**
 * A known difference from @subql/node and where it shows: the build fails, or the run ends otherwise
 * (every table difference then follows from it), or the tables differ in the lines `lines` matches.
 */
export interface KnownDifference {
  says: string;
  shows: 'build' | 'run' | 'tables';
  lines?: RegExp;
}

/** idx's known differences from @subql/node 6.4.6 that fixtures expose (issue 26 numbers them). */
export const DIFFERS = {} as const satisfies Record<string, KnownDifference>;

/** What a fixture's known differences say about where they show, for a test's todo (undefined when none). */
export function knownAt(fixture: SubstrateFixture, shows: KnownDifference['shows']): string | undefined {
  const says = (fixture.differs ?? []).filter((d) => d.shows === shows).map((d) => d.says);
  return says.length === 0 ? undefined : says.join('; ');
}

const STARTER = { repo: 'subquery/subql-starter', commit: '3ab931b99e2ef25d176c67c923088083dbad8183' };
const DICTIONARY = { repo: 'subquery/subql-dictionary', commit: 'c4f3a8cc28b2c2181698de275b1f6892b0a01362' };

export const SUBSTRATE_FIXTURES: readonly SubstrateFixture[] = [
  {
    name: 'polkadot-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Polkadot/Polkadot-starter' },
    exercises: 'balances.Transfer event handler; sender from the extrinsic signer (asserted); decodeAddress; Transfer→Account relations, Date',
  },
  {
    name: 'statemine-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Statemine/statemine-starter' },
    exercises: 'balances.Transfer event handler with sender from the event data; decodeAddress; relations, Date (the local runtime is statemine)',
  },
  {
    name: 'acurast-canary-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Acurast/acurast-canary-starter' },
    exercises: 'the starter with a required Date (date: Date!)',
  },
  {
    name: 'energy-web-x-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Energy Web X/energy-web-x-starter' },
    exercises: 'a mapping that reads Transfer data as [to, amount]: fails on a chain whose Transfer is [from, to, amount]',
  },
  {
    name: 'acala-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Acala/acala-starter' },
    exercises: 'chain types in JS: typesBundle from @acala-network/type-definitions and a top-level types override',
    needs: ['@acala-network/type-definitions@5.1.2'],
  },
  {
    name: 'moonbeam-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Moonbeam/Moonbeam-starter' },
    exercises: 'chain types in JS: typesBundle from moonbeam-types-bundle',
    needs: ['moonbeam-types-bundle@2.0.10'],
  },
  {
    name: 'kilt-spiritnet-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Kilt/kilt-spiritnet-starter' },
    exercises: 'chain types in JS: typesBundle from @kiltprotocol/type-definitions',
    needs: ['@kiltprotocol/type-definitions@1.11502.1'],
  },
  {
    name: 'kilt-credentials-example',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Kilt/kilt-spiritnet-credentials-example' },
    exercises: 'event handlers on attestation.*, a pallet the local runtime lacks: nothing to index',
    needs: ['@kiltprotocol/type-definitions@1.11502.1'],
  },
  {
    name: 'astar-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Astar/astar-starter' },
    exercises: 'chain types in JS: an inline typesBundle.spec for astar',
  },
  {
    name: 'basilisk-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Basilisk/basilisk-starter' },
    exercises: 'chain types in JS: an inline typesBundle.spec with an alias and an Address override',
  },
  {
    name: 'bajun-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Bajun/bajun-starter' },
    exercises: 'chain types in JS whose default export is an OverrideBundleDefinition (types given as an array)',
  },
  {
    name: 'avail-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Avail/avail-starter' },
    exercises: 'chain types in JS for avail (header extension types), network.bypassBlocks',
  },
  {
    name: 'reef-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Reef/reef-starter' },
    exercises: 'chain types as a JSON file (src/chaintypes.json)',
  },
  {
    name: 'frequency-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Frequency/frequency-starter' },
    exercises: 'chain types in JS built from @frequency-chain/api-augment (an ESM package with exports conditions)',
    needs: ['@frequency-chain/api-augment@2.0.1'],
  },
  {
    name: 'zeitgeist-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Zeitgeist/zeitgeist-starter' },
    exercises: 'chain types in JS from @zeitgeistpm/type-defs',
    needs: ['@zeitgeistpm/type-defs@1.0.0'],
  },
  {
    name: 'quartz-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Quartz/quartz-subql-starter' },
    exercises: 'chain types in JS importing a package subpath (@unique-nft/types/definitions)',
    needs: ['@unique-nft/types@0.2.0'],
  },
  {
    name: 'subsocial-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Subsocial/subsocial-starter' },
    exercises: 'chain types importing a file of a package (@subsocial/definitions/interfaces/subsocial/definitions.js)',
    needs: ['@subsocial/definitions@0.8.14'],
    cannot:
      '@subsocial/definitions 0.8.14 depends on @polkadot/api "latest" (17.0.1), whose @polkadot/api-augment 17.0.1 the registry does not have: npm install fails (ETARGET)',
  },
  {
    name: 'astar-wasm-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Astar/astar-wasm-starter' },
    exercises:
      'a custom data source (substrate/Wasm, processor from @subql/substrate-wasm-processor) beside event handlers on dappsStaking, which the local runtime lacks',
    needs: ['@subql/substrate-wasm-processor@1.0.0'],
  },
  {
    name: 'acala-evm-starter',
    manifest: 'project.ts',
    source: { ...STARTER, path: 'Acala/acala-evm-starter' },
    exercises: 'a custom data source (substrate/AcalaEvm, processor from @subql/acala-evm-processor), ethers in the mapping, Acala chain types',
    needs: ['@acala-network/type-definitions@4.1.5', '@subql/acala-evm-processor@1.0.1', 'ethers@5.8.0'],
    cannot:
      '@subql/acala-evm-processor installs @acala-network/eth-providers and ethers 5 (about 90 MB) for a processor whose bundle needs neither: not a dependency of idx; ' +
      'astar-wasm-starter and test/node-substrate-custom.test.ts cover custom data sources',
  },
  {
    name: 'humanode-starter',
    manifest: 'substrate.yaml',
    source: { ...STARTER, path: 'Humanode/Humanode-starter' },
    exercises:
      'a multichain project (subquery-multichain.yaml: a Substrate and an EVM manifest, one schema); its Substrate half run alone: ' +
      'event handlers on bioauth and imOnline, pallets the local runtime lacks; a [String]! list and Dates; @polkadot/api-augment',
  },
  {
    name: 'polkadot-dictionary',
    manifest: 'project.yaml',
    source: { ...DICTIONARY, path: 'polkadot' },
    exercises: 'a block handler over every event and extrinsic (with its hash and success), historical off, a parent project',
  },
  {
    name: 'statemine-dictionary',
    manifest: 'project.yaml',
    source: { ...DICTIONARY, path: 'statemine' },
    exercises: 'a block handler over every event and extrinsic, historical on, entities made with Entity.create',
  },
  {
    name: 'aleph-zero-dictionary',
    manifest: 'project.yaml',
    source: { ...DICTIONARY, path: 'aleph-zero' },
    exercises: 'a block handler over every event and extrinsic, historical off, chain types in JS',
  },
  {
    name: 'nova-history',
    manifest: 'statemine.yaml',
    source: { repo: 'novasamatech/subquery-history', path: '.', commit: 'a945a31b1a3b84cced69a90f4a5cca1e2636972c' },
    exercises:
      'Nova Wallet’s history indexer: a call handler on every extrinsic (batches, proxies, failed transfers, fees from events), ' +
      'balances/assets transfer events, @jsonField types, enums, lists, @polkadot/api-augment, filters on pallets the runtime lacks (staking, ' +
      'nominationPools, currencies, tokens), chain types for statemine built from a package.json exports entry',
    needs: [
      '@acala-network/type-definitions@5.1.2',
      '@bifrost-finance/type-definitions@1.11.9',
      '@crustio/type-definitions@1.3.0',
      '@docknetwork/node-types@0.17.0',
      '@equilab/definitions@1.4.18',
      '@frequency-chain/api-augment@1.7.4',
      '@interlay/interbtc-types@1.13.0',
      '@kiltprotocol/type-definitions@0.1.23',
      '@parallel-finance/type-definitions@1.7.17',
      '@peaqnetwork/type-definitions@0.0.4',
      '@phala/typedefs@0.2.33',
      '@polymeshassociation/polymesh-types@5.15.0',
      '@subsocial/types@0.6.8',
      '@zeitgeistpm/type-defs@1.0.0',
      '@zeroio/type-definitions@0.0.14',
      'moonbeam-types-bundle@2.0.10',
    ],
    cannot:
      'its package.json exports build the chain types of every network it indexes: 16 type-definition packages (about 85 MB) that are not dependencies of idx; ' +
      'with them installed (IDX_FIXTURE_DEPS) its 7 tables equal @subql/node’s',
  },
  {
    name: 'nova-accounts',
    manifest: 'project-westend-asset-hub.yaml',
    source: { repo: 'novasamatech/subquery-accounts', path: '.', commit: 'a8d3597820ac3f4bb4e1bbd6622a987057d26dcb' },
    exercises: 'Nova Wallet’s proxy and multisig indexer: call handlers with success/isSigned filters on proxy, multisig and utility calls, pure proxies',
    needs: ['subquery-call-visitor@1.4.2', 'moonbeam-types-bundle@2.0.10'],
    cannot: 'subquery-call-visitor (its mappings’ call walker) is not in the npm registry reachable here',
  },
];
