import t from 'tap';
import { BUNDLED_PACKAGES, bundleName, duplicatedPackages, packageOf } from './bundle-rules.ts';

t.test('the package a bare import names', (t) => {
  t.equal(packageOf('kysely'), 'kysely');
  t.equal(packageOf('viem/chains'), 'viem');
  t.equal(packageOf('@noble/hashes/sha3'), '@noble/hashes');
  t.equal(packageOf('@polkadot/api'), '@polkadot/api');
  t.end();
});

t.test('a program bundles beside the others under its module path with dots', (t) => {
  t.equal(bundleName('apps/node/main'), 'apps.node.main');
  t.equal(bundleName('apps/node/families/ethereum/fetch-worker'), 'apps.node.families.ethereum.fetch-worker');
  t.end();
});

t.test('an external package that loads a bundled one, directly or through another external, is found', (t) => {
  const deps: Record<string, string[]> = {
    'graphql-compose': ['graphql-type-json', 'graphql'],
    '@polkadot/api': ['@polkadot/util'],
    '@polkadot/util': ['@noble/hashes', 'tslib'],
    pg: ['pg-protocol'],
    // a cycle must end
    a: ['b'],
    b: ['a'],
  };
  const of = (name: string) => deps[name] ?? [];
  t.same(duplicatedPackages(['graphql', '@noble/hashes'], ['graphql-compose', '@polkadot/api', 'pg', 'a'], of), [
    { external: 'graphql-compose', bundled: 'graphql' },
    { external: '@polkadot/api', bundled: '@noble/hashes' },
  ]);
  // graphql-compose bundled with graphql: one copy of each
  t.same(duplicatedPackages(['graphql', 'graphql-compose', 'graphql-type-json'], ['pg', '@polkadot/api'], of), []);
  t.end();
});

t.test('what idx bundles never includes a package that must stay outside', (t) => {
  // native addons, WebAssembly found beside the package, worker files found by path, and @polkadot's twice-loaded check
  for (const name of ['isolated-vm', '@swc/core', '@electric-sql/pglite', 'pino', 'thread-stream', 'pg', '@polkadot/api', 'rollup'])
    t.notOk(BUNDLED_PACKAGES.includes(name), name);
  t.end();
});
