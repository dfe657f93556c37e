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
