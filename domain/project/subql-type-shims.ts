/**
 * The run-time values of SubQuery's type packages that manifests (`project.ts`) and mappings use;
 * everything else in them is types only, which swc removes. idx provides these, so a project builds
 * and loads without the packages installed.
 */
const ethereum = {
  EthereumDatasourceKind: { Runtime: 'ethereum/Runtime' },
  EthereumHandlerKind: { Block: 'ethereum/BlockHandler', Call: 'ethereum/TransactionHandler', Event: 'ethereum/LogHandler' },
};
const substrate = {
  SubstrateDatasourceKind: { Runtime: 'substrate/Runtime' },
  SubstrateHandlerKind: { Block: 'substrate/BlockHandler', Call: 'substrate/CallHandler', Event: 'substrate/EventHandler' },
};

export const SUBQL_TYPE_SHIMS: Readonly<Record<string, Record<string, unknown>>> = {
  '@subql/types-ethereum': ethereum,
  '@subql/types-core': {},
  '@subql/types': substrate,
};

/**
 * Packages a Substrate mapping imports for their side effects on types only (`import "@polkadot/api-augment"`
 * in SubQuery's starters): empty at run time.
 */
export const TYPE_ONLY_PACKAGES: readonly RegExp[] = [/^@polkadot\/(api|rpc|types)-augment(\/.*)?$/];
