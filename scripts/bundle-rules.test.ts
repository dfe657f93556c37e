import t from 'tap';
import { BUNDLED_PACKAGES, PROGRAM_BUILDS, bundleName, duplicatedPackages, packageOf } from './bundle-rules.ts';

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
  // native addons, WebAssembly found beside the package, worker files found by path, and the devchain's @polkadot/api
  for (const { packages } of PROGRAM_BUILDS)
    for (const name of ['isolated-vm', '@swc/core', '@electric-sql/pglite', 'pino', 'thread-stream', 'pg', '@polkadot/api', '@polkadot/keyring', 'rollup'])
      t.notOk(packages.includes(name), name);
  t.end();
});

t.test('each program is bundled once, and only programs that start no local chain bundle @polkadot', (t) => {
  const entries = PROGRAM_BUILDS.flatMap((b) => b.entries);
  t.equal(new Set(entries).size, entries.length, 'no program in two builds');
  t.same([...entries].sort(), [
    'apps/cli/main',
    'apps/node/families/ethereum/fetch-worker',
    'apps/node/main',
    'apps/query/main',
    'apps/shard/main',
    'devchain/demo/main',
    'devchain/demo/serve-chain',
  ]);
  // idx dev and the demo start chopsticks, which loads @polkadot from node_modules (the build also refuses it)
  const withPolkadot = PROGRAM_BUILDS.filter((b) => b.packages.includes('@polkadot/types')).flatMap((b) => b.entries);
  t.same(withPolkadot, ['apps/node/main', 'apps/query/main', 'apps/shard/main', 'apps/node/families/ethereum/fetch-worker']);
  t.end();
});
