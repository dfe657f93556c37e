// What scripts/bundle-programs.ts puts in the bundle, and the rules that keep it safe (pure, tested).

/**
 * The packages bundled with idx's own modules: pure JavaScript that finds no file beside itself, and
 * the most files of a start (kysely, viem, graphql, yaml). viem's cryptography (@noble, @scure) stays
 * outside: @polkadot loads it too, and a package in the bundle must not also be loaded from node_modules. Every other package
 * stays external, loaded from node_modules as before: native addons, WebAssembly, worker files.
 */
export const BUNDLED_PACKAGES: readonly string[] = [
  'kysely',
  'viem',
  'ox',
  'abitype',
  'graphql',
  'graphql-compose',
  'graphql-type-json',
  'graphql-ws',
  'yaml',
  'commander',
  'prom-client',
  'tdigest',
  'bintrees',
  '@opentelemetry/api',
  'pluralize',
];

/**
 * @polkadot's packages the Substrate family decodes with: bundled into the programs that never load
 * @polkadot from node_modules too (idx-node, idx-query, idx-shard), where Node read ~600 of their
 * files at every Substrate start (~0.6 s). Programs that start a local chain (`idx`, the demo) keep
 * them external: chopsticks loads @polkadot from node_modules, and @polkadot checks it runs once.
 * @polkadot/api and its keyring are never bundled: only the devchain loads them.
 */
export const POLKADOT_PACKAGES: readonly string[] = [
  'types',
  'types-codec',
  'types-create',
  'types-known',
  'types-support',
  'types-augment',
  'rpc-augment',
  'rpc-core',
  'util',
  'util-crypto',
  'networks',
  'x-bigint',
  'x-global',
  'x-randomvalues',
  'x-textdecoder',
  'x-textencoder',
  'wasm-bridge',
  'wasm-crypto',
  'wasm-crypto-asmjs',
  'wasm-crypto-init',
  'wasm-crypto-wasm',
  'wasm-util',
].map((name) => `@polkadot/${name}`);

/**
 * Files of bundled packages that name `__dirname` only to ask whether it exists (`typeof __dirname`):
 * ES modules, where it never does, bundled or not.
 */
export const DIRNAME_PROBES: readonly string[] = ['node_modules/@polkadot/util/has.js'];

/**
 * What launch.js and the worker threads load (programs by their module path in dist/, without
 * extension) in two esbuild runs: the programs that never start a local chain bundle @polkadot too.
 */
export const PROGRAM_BUILDS: readonly { entries: readonly string[]; packages: readonly string[] }[] = [
  {
    entries: ['apps/node/main', 'apps/query/main', 'apps/shard/main', 'apps/node/families/ethereum/fetch-worker'],
    packages: [...BUNDLED_PACKAGES, ...POLKADOT_PACKAGES],
  },
  { entries: ['apps/cli/main', 'devchain/demo/main', 'devchain/demo/serve-chain'], packages: BUNDLED_PACKAGES },
];

/** The package a bare import names: `@scope/name/x` → `@scope/name`, `name/x` → `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** A program's module path in dist/ → its file in dist/bundle/ (every output beside the others): `apps/node/main` → `apps.node.main`. */
export function bundleName(modulePath: string): string {
  return modulePath.replaceAll('/', '.');
}

/**
 * Bundled packages an external one loads too, directly or through other external packages: that
 * package would run twice, once in the bundle and once from node_modules (graphql's
 * "another module or realm" error, two registries of prom-client's metrics).
 */
export function duplicatedPackages(
  bundled: readonly string[],
  externals: readonly string[],
  dependenciesOf: (name: string) => readonly string[],
): { external: string; bundled: string }[] {
  const found: { external: string; bundled: string }[] = [];
  for (const external of externals) {
    const seen = new Set<string>([external]);
    const queue = [external];
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      for (const dep of dependenciesOf(name)) {
        if (seen.has(dep)) continue;
        seen.add(dep);
        if (bundled.includes(dep)) found.push({ external, bundled: dep });
        else queue.push(dep);
      }
    }
  }
  return found;
}
