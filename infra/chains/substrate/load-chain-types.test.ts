import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keccakAsU8a } from '@polkadot/util-crypto';
import t, { type Test } from 'tap';
import { exitWhenDone } from '../../../test/support/exit-when-done.ts';
import { projectFolder } from '../../../test/support/idx-cli.ts';
import { createPreludeCache } from '../../sandbox/create-prelude-cache.ts';
import { loadChainTypes } from './load-chain-types.ts';

exitWhenDone();
const prelude = createPreludeCache();

const project = (t: Test, files: Record<string, string>) => projectFolder(t, files, 'idx-chaintypes-');

const load = (root: string, file: string, timeoutMs = 5000) => loadChainTypes({ root, manifestPath: 'project.yaml' }, file, { prelude, timeoutMs });

const TYPES = { types: { Foo: 'u32' }, typesAlias: { balances: { Status: 'u8' } } };

t.test('JSON and YAML files are read as data', async (t) => {
  const dir = await project(t, {
    'types.json': JSON.stringify(TYPES),
    'types.yaml': 'types:\n  Foo: u32\ntypesAlias:\n  balances:\n    Status: u8\n',
  });
  for (const file of ['./types.json', 'types.yaml']) {
    const got = await load(dir, file);
    t.same(got.registry, TYPES, file);
    t.same(got.sandbox, { file, value: TYPES });
  }
});

t.test("a JavaScript file (idx build's dist/chaintypes.js) is evaluated in a sandbox for its default export", async (t) => {
  const dir = await project(t, {
    // what rollup writes for `export default { … }` with a hasher function in a bundle entry
    'dist/chaintypes.js': [
      "'use strict';",
      "Object.defineProperty(exports, '__esModule', { value: true });",
      "const util = require('util');",
      'const hasher = (data) => new Uint8Array(32).fill(data.length);',
      "var chaintypes = { types: { Foo: util.format('%s', 'u32') }, typesBundle: { spec: { statemine: { hasher, types: [{ minmax: [0, null], types: { Bar: 'u64' } }] }, other: { hasher: 'keccakAsU8a' } } } };",
      'exports.default = chaintypes;',
    ].join('\n'),
  });
  const got = await load(dir, './dist/chaintypes.js');
  const entry = join(dir, 'dist', 'chaintypes.js');
  const bundle = got.registry.typesBundle!.spec!;
  t.same(got.registry.types, { Foo: 'u32' });
  t.same(bundle.statemine, { types: [{ minmax: [0, null], types: { Bar: 'u64' } }] }, 'the node gets the data; the hasher function stays in the sandbox');
  const named = bundle.other!.hasher as (d: Uint8Array) => Uint8Array;
  t.same(named(new Uint8Array([1, 2])), keccakAsU8a(new Uint8Array([1, 2])), "a hasher named as SubQuery names it is @polkadot/util-crypto's");
  t.match(got.sandbox, { file: './dist/chaintypes.js', entry, resolutions: { [`${entry}\nutil`]: 'builtin:util' } });
  t.same(Object.keys((got.sandbox as { modules: object }).modules), [entry]);
});

t.test("its requires resolve from the project folder as Node resolves them: the project's files and node_modules, JSON included", async (t) => {
  const dir = await project(t, {
    'chaintypes.cjs': "const { bundle } = require('types-pkg');\nexports.default = { typesBundle: bundle, typesChain: require('./chain.json') };\n",
    'chain.json': JSON.stringify({ 'Some Chain': { Baz: 'u8' } }),
    'node_modules/types-pkg/package.json': JSON.stringify({ name: 'types-pkg', exports: { require: './cjs/index.js', import: './esm/index.mjs' } }),
    'node_modules/types-pkg/cjs/index.js': "exports.bundle = { spec: { statemine: { types: [{ minmax: [0, undefined], types: { Qux: 'u16' } }] } } };\n",
  });
  const got = await load(dir, 'chaintypes.cjs');
  t.same(got.registry, {
    typesBundle: { spec: { statemine: { types: [{ minmax: [0, null], types: { Qux: 'u16' } }] } } },
    typesChain: { 'Some Chain': { Baz: 'u8' } },
  });
  const modules = (got.sandbox as { modules: Record<string, { kind: string }> }).modules;
  t.same(
    Object.values(modules)
      .map((m) => m.kind)
      .sort(),
    ['js', 'js', 'json'],
    'the modules read are kept for the mappings sandbox',
  );
});

t.test('what SubQuery refuses, and what cannot load, is refused naming the file and the field', async (t) => {
  const dir = await project(t, {
    'array.json': JSON.stringify({ types: [{ minmax: [0, null], types: { Foo: 'u32' } }] }),
    'no-default.js': 'module.exports = { types: { Foo: "u32" } };\n',
    'extra.yaml': 'types: { Foo: u32 }\ntypeBundle: {}\n',
    'empty.json': '{}',
    'bad-bundle.json': JSON.stringify({ typesBundle: { spec: { statemine: { types: { Foo: 'u32' }, hasher: 'md5AsU8a' } } }, typesSpec: { statemine: [] } }),
    'src/chaintypes.ts': 'export default { types: {} };\n',
    'fs.js': "require('fs');\nexports.default = { types: {} };\n",
    'outside.js': "require('../elsewhere.js');\nexports.default = { types: {} };\n",
    'esm.js': "require('esm-pkg');\nexports.default = { types: {} };\n",
    'node_modules/esm-pkg/package.json': JSON.stringify({ name: 'esm-pkg', type: 'module', main: 'index.js' }),
    'node_modules/esm-pkg/index.js': 'export const x = 1;\n',
    'throws.js': "exports.default = { types: {} };\nthrow new Error('boom');\n",
    'loops.js': 'while (true) {}\n',
  });
  const cases: [file: string, code: string, message: RegExp][] = [
    [
      'array.json',
      'VALIDATION_FAILED',
      /^array\.json \(project\.yaml: network\.chaintypes\.file\) is invalid:\n {2}- types: must be an object, not an array \(type definitions by name; types that apply to some spec versions only go in typesBundle\.spec\.<specName>\.types/,
    ],
    ['no-default.js', 'VALIDATION_FAILED', /- default export: there is none: export the chain types as the module's default/],
    [
      'extra.yaml',
      'VALIDATION_FAILED',
      /- typeBundle: is not a chain-types field \(SubQuery refuses it too\); the fields are types, typesAlias, typesBundle, typesChain, typesSpec/,
    ],
    [
      'empty.json',
      'VALIDATION_FAILED',
      /- chain types: expected an object with at least one of types, typesAlias, typesBundle, typesChain, typesSpec; got one with no fields/,
    ],
    ['bad-bundle.json', 'VALIDATION_FAILED', /- typesBundle\.spec\.statemine\.types: must be a list of \{ minmax: \[from, to\], types \}, not an object/],
    [
      'bad-bundle.json',
      'VALIDATION_FAILED',
      /- typesBundle\.spec\.statemine\.hasher: must be a function, or the name of a hasher of @polkadot\/util-crypto \(blake2AsU8a, keccakAsU8a/,
    ],
    ['bad-bundle.json', 'VALIDATION_FAILED', /- typesSpec\.statemine: must be an object, not an array/],
    [
      'src/chaintypes.ts',
      'CHAIN_TYPES_INVALID',
      /network\.chaintypes\.file src\/chaintypes\.ts: a \.ts file cannot be chain types: use \.json, \.yaml, \.yml, \.js or \.cjs; for a TypeScript file, export it from package\.json "exports"/,
    ],
    ['dist/chaintypes.js', 'PROJECT_INCOMPLETE', /^project\.yaml: network\.chaintypes\.file dist\/chaintypes\.js does not exist \(is the project built\?/],
    [
      'fs.js',
      'CHAIN_TYPES_INVALID',
      /^project\.yaml: network\.chaintypes\.file fs\.js failed to load: fs\.js requires "fs": chain types, as mappings, may require only Node's assert, buffer, crypto/,
    ],
    ['outside.js', 'CHAIN_TYPES_INVALID', /outside\.js requires "\.\.\/elsewhere\.js", which (cannot be found|is .*elsewhere\.js, outside the project folder)/],
    ['esm.js', 'CHAIN_TYPES_INVALID', /esm\.js requires "esm-pkg": node_modules\/esm-pkg\/index\.js is an ES module/],
    ['throws.js', 'CHAIN_TYPES_INVALID', /^project\.yaml: network\.chaintypes\.file throws\.js failed to load: boom\n {4}at .*throws\.js:2/],
    ['loops.js', 'CHAIN_TYPES_INVALID', /^project\.yaml: network\.chaintypes\.file loops\.js failed to load: Script execution timed out/],
  ];
  for (const [file, code, message] of cases) await t.rejects(load(dir, file, 1000), { name: /Error$/, code, message }, file);
  // a file outside the project that exists is refused as such, not merely not found
  await writeFile(join(dir, '..', `${dir.split('/').pop()}-elsewhere.js`), 'exports.x = 1;\n');
  t.teardown(() => rm(join(dir, '..', `${dir.split('/').pop()}-elsewhere.js`), { force: true }));
  await writeFile(join(dir, 'outside2.js'), `require('../${dir.split('/').pop()}-elsewhere.js');\nexports.default = { types: {} };\n`);
  await t.rejects(load(dir, 'outside2.js'), {
    message: /outside the project folder .*: chain types may require only the project's files and its node_modules/,
  });
});
