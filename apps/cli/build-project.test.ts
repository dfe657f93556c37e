import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t, { type Test } from 'tap';
import { IdxError } from '../../domain/errors.ts';
import { buildProject } from './build-project.ts';
import type { BuildMode } from './build-mode.ts';
import type { Reporter } from './reporter.ts';
import { evaluateBundle } from '../../test/support/evaluate-bundle.ts';
import { decodeAddress, encodeAddress, blake2AsHex } from '@polkadot/util-crypto';
import { u8aToHex, stringToU8a } from '@polkadot/util';
import { createPreludeCache } from '../../infra/sandbox/create-prelude-cache.ts';
import { createSandbox } from '../../infra/sandbox/create-sandbox.ts';
import { block, createFakeHost } from '../../infra/sandbox/fixtures/fake-host.ts';

function collecting(): Reporter & { infos: string[]; warnings: string[] } {
  const infos: string[] = [];
  const warnings: string[] = [];
  return { infos, warnings, info: (m) => void infos.push(m), warn: (m) => void warnings.push(m) };
}

/** A manifest naming no handler, for tests about bundling: idx build needs one (see 'the manifest' tests). */
const NO_HANDLER_MANIFEST = {
  'project.yaml': [
    'specVersion: 1.0.0',
    'name: build-test',
    'runner: { node: { name: "@subql/node-ethereum", version: "*" }, query: { name: "@subql/query", version: "*" } }',
    'schema: { file: ./schema.graphql }',
    'network: { chainId: "1", endpoint: http://127.0.0.1:8545 }',
    'dataSources: []',
    '',
  ].join('\n'),
  'schema.graphql': 'type Thing @entity {\n  id: ID!\n}\n',
};
const MANIFEST = /^(project|subquery-multichain)\.(ts|ya?ml|json)$/;

async function project(t: Test, files: Record<string, string>, opts: { defaultManifest?: false } = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'idx-build-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const given = Object.keys(files);
  const withManifest =
    opts.defaultManifest === false || given.some((f) => MANIFEST.test(f)) || !given.some((f) => f.startsWith('src/'))
      ? files
      : { ...NO_HANDLER_MANIFEST, ...files };
  for (const [path, text] of Object.entries(withManifest)) {
    await mkdir(resolve(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

async function failure(promise: Promise<unknown>): Promise<IdxError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof IdxError)) throw new Error(`expected an IdxError, got ${String(err)}`);
  return err;
}

t.test('one self-contained CommonJS file: dependencies bundled, built-ins required, SubQuery value imports shimmed', async (t) => {
  const dir = await project(t, {
    'src/index.ts': [
      'import { EthereumHandlerKind } from "@subql/types-ethereum";',
      'import type { EthereumLog } from "@subql/types-ethereum";',
      'import { createHash } from "node:crypto";',
      'import pad from "left-pad";',
      'import { double } from "./lib/math.js";',
      'import abi from "../abis/tiny.json";',
      'export function handle(log: EthereumLog): string {',
      '  const h = createHash("sha256").update(log.address).digest("hex").slice(0, 4);',
      '  return [EthereumHandlerKind.Event, pad(String(double(21)), 5), h, abi[0].name].join("|");',
      '}',
    ].join('\n'),
    'src/lib/math.ts': 'export const double = (n: number): number => n * 2;\n',
    'abis/tiny.json': '[{"type":"event","name":"Ping","inputs":[]}]',
    // a CommonJS dependency, as most of npm still is
    'node_modules/left-pad/package.json': '{"name":"left-pad","main":"index.js"}',
    'node_modules/left-pad/index.js':
      'if (process.env.NODE_ENV !== "production") throw new Error("not production");\n' +
      'module.exports = function (s, n) { while (s.length < n) s = "0" + s; return s; };\n',
  });
  const reporter = collecting();
  // production: process.env.NODE_ENV in dependencies reads "production" (the sandbox has no process)
  const result = await buildProject({ location: dir, mode: 'production', reporter });
  t.same(
    result.entries.map((e) => [e.name, e.file]),
    [['index', join(dir, 'dist', 'index.js')]],
  );
  const code = await readFile(join(dir, 'dist', 'index.js'), 'utf8');
  t.notMatch(code, /require\(['"](left-pad|\.|@subql)/, 'nothing but built-ins is left to require');
  t.match(code, /require\(["']crypto["']\)/, 'node:crypto is required as crypto, which the sandbox provides');
  t.notMatch(code, /\bimport\b|\bexport\b/, 'no ES module syntax is left');
  const exports = evaluateBundle(code, {});
  const hash = (await import('node:crypto')).createHash('sha256').update('0xabc').digest('hex').slice(0, 4);
  t.equal((exports.handle as (l: unknown) => string)({ address: '0xabc' }), `ethereum/LogHandler|00042|${hash}|Ping`);
  t.same(reporter.warnings, []);
});

t.test('source maps point into the TypeScript, in both modes', async (t) => {
  for (const mode of ['production', 'development'] as BuildMode[]) {
    const dir = await project(t, {
      'src/index.ts': 'export * from "./mappings/fail";\n',
      'src/mappings/fail.ts': '// line 1\n// line 2\nexport function handleFail(): never {\n  throw new Error("boom");\n}\n',
    });
    await buildProject({ location: dir, mode, reporter: collecting() });
    const code = await readFile(join(dir, 'dist', 'index.js'), 'utf8');
    t.match(code, /\/\/# sourceMappingURL=index\.js\.map\s*$/);
    const raw = JSON.parse(await readFile(join(dir, 'dist', 'index.js.map'), 'utf8')) as { sources: string[]; sourcesContent: string[] };
    t.ok(
      raw.sourcesContent.some((s) => s.includes('throw new Error("boom")')),
      `${mode}: the map carries the sources`,
    );
    const exports = evaluateBundle(code, {}, 'index.js');
    let stack = '';
    try {
      (exports.handleFail as () => void)();
    } catch (e) {
      stack = String((e as Error).stack);
    }
    const at = /index\.js:(\d+):(\d+)/.exec(stack);
    t.ok(at, `${mode}: the error points into index.js`);
    const map = new SourceMap(JSON.parse(await readFile(join(dir, 'dist', 'index.js.map'), 'utf8')));
    const entry = map.findEntry(Number(at![1]) - 1, Number(at![2]) - 1) as { originalSource?: string; originalLine?: number };
    t.match(entry.originalSource, /src\/mappings\/fail\.ts$/, `${mode}: mapped to the source file`);
    t.equal(entry.originalLine, 3, `${mode}: mapped to the throwing line`);
    if (mode === 'production') t.ok(code.split('\n').length <= 3, 'production minifies');
    else t.match(code, /\n {4}throw new Error\("boom"\);/, 'development keeps the code readable');
  }
});

t.test('package.json exports: string entries are built too, others ignored with a warning', async (t) => {
  const dir = await project(t, {
    'package.json': JSON.stringify({
      name: 'multi',
      exports: { chaintypes: './src/chaintypes.ts', './tools/helpers': 'src/helpers.ts', conditional: { import: './x.js' }, count: 3 },
    }),
    'src/index.ts': 'export const handler = () => "index";\n',
    'src/chaintypes.ts': 'export const types = { Balance: "u128" };\n',
    'src/helpers.ts': 'export function help(): string { return "helped"; }\n',
  });
  const reporter = collecting();
  const result = await buildProject({ location: dir, reporter });
  t.same(
    result.entries.map((e) => e.name),
    ['index', 'chaintypes', 'tools/helpers'],
  );
  t.same(evaluateBundle(await readFile(join(dir, 'dist', 'chaintypes.js'), 'utf8'), {}).types, { Balance: 'u128' });
  t.equal((evaluateBundle(await readFile(join(dir, 'dist', 'tools', 'helpers.js'), 'utf8'), {}).help as () => string)(), 'helped');
  t.notMatch(await readFile(join(dir, 'dist', 'chaintypes.js'), 'utf8'), /helped|index/, 'each entry stands alone');
  t.same(reporter.warnings, [
    'package.json exports."conditional" is not a string (a file path) and is ignored',
    'package.json exports."count" is not a string (a file path) and is ignored',
  ]);
  t.notOk(existsSync(join(dir, 'dist', 'project.yaml')), 'no project.ts, no project.yaml');

  const missing = await project(t, { 'package.json': '{"exports":{"gone":"./src/gone.ts"}}', 'src/index.ts': 'export {};\n' });
  t.match((await failure(buildProject({ location: missing, reporter: collecting() }))).message, /exports\."gone": .*src\/gone\.ts does not exist/);
});

t.test('-o puts the output elsewhere; project.ts becomes project.yaml there', async (t) => {
  const dir = await project(t, {
    'project.ts': [
      'import { EthereumDatasourceKind, EthereumHandlerKind, type EthereumProject } from "@subql/types-ethereum";',
      'const project: EthereumProject = {',
      '  specVersion: "1.0.0", name: "out-test", schema: { file: "./schema.graphql" },',
      '  network: { chainId: "1", endpoint: ["http://127.0.0.1:8545"] },',
      '  dataSources: [{ kind: EthereumDatasourceKind.Runtime, startBlock: 3, mapping: { file: "./dist/index.js",',
      '    handlers: [{ kind: EthereumHandlerKind.Block, handler: "handleBlock" }] } }],',
      '};',
      'export default project;',
    ].join('\n'),
    'schema.graphql': 'type A @entity { id: ID! }\n',
    'src/index.ts': 'export async function handleBlock(): Promise<void> {}\n',
  });
  const result = await buildProject({ location: dir, output: 'out/build', reporter: collecting() });
  t.equal(result.outputDir, join(dir, 'out', 'build'));
  t.ok(existsSync(join(dir, 'out', 'build', 'index.js')));
  const yaml = await readFile(join(dir, 'out', 'build', 'project.yaml'), 'utf8');
  t.match(yaml, /^name: out-test$/m);
  t.match(yaml, /kind: ethereum\/BlockHandler/);
  t.match(yaml, /startBlock: 3/);
});

t.test(
  'a Substrate project.ts (SubstrateDatasourceKind from @subql/types) and a mapping importing @polkadot/api-augment build without those packages',
  async (t) => {
    const dir = await project(t, {
      'project.ts': [
        'import { SubstrateDatasourceKind, SubstrateHandlerKind, type SubstrateProject } from "@subql/types";',
        'const project: SubstrateProject = {',
        '  specVersion: "1.0.0", name: "substrate-test", schema: { file: "./schema.graphql" },',
        `  network: { chainId: "0x${'ab'.repeat(32)}", endpoint: ["wss://rpc.example.org"] },`,
        '  dataSources: [{ kind: SubstrateDatasourceKind.Runtime, startBlock: 1, mapping: { file: "./dist/index.js",',
        '    handlers: [{ kind: SubstrateHandlerKind.Event, handler: "handleEvent", filter: { module: "balances", method: "Transfer" } },',
        '               { kind: SubstrateHandlerKind.Call, handler: "handleEvent", filter: { module: "utility", success: true } }] } }],',
        '};',
        'export default project;',
      ].join('\n'),
      'schema.graphql': 'type A @entity { id: ID! }\n',
      'src/index.ts': [
        'import "@polkadot/api-augment";',
        'import type { SubstrateEvent } from "@subql/types";',
        'import type { Balance } from "@polkadot/types/interfaces";',
        'export async function handleEvent(e: SubstrateEvent): Promise<void> { const [, , amount] = e.event.data; logger.info(String((amount as Balance).toBigInt())); }',
      ].join('\n'),
    });
    await buildProject({ location: dir, reporter: collecting() });
    const yaml = await readFile(join(dir, 'dist', 'project.yaml'), 'utf8');
    t.match(yaml, /kind: substrate\/Runtime/);
    t.match(yaml, /kind: substrate\/EventHandler/);
    t.match(yaml, /kind: substrate\/CallHandler/);
    const bundle = await readFile(join(dir, 'dist', 'index.js'), 'utf8');
    t.notMatch(bundle, /require\(["']@polkadot/, 'nothing of @polkadot is required at run time');
  },
);

t.test('clear errors: missing src/index.ts, bad mode, syntax error, unresolved imports', async (t) => {
  const empty = await project(t, { 'package.json': '{}' });
  const noIndex = await failure(buildProject({ location: empty, reporter: collecting() }));
  t.equal(noIndex.code, 'BUILD_ENTRY_NOT_FOUND');
  t.match(noIndex.message, /src\/index\.ts does not exist: idx build always bundles src\/index\.ts/);

  const mode = await failure(buildProject({ location: empty, mode: 'fast' as BuildMode, reporter: collecting() }));
  t.equal(mode.code, 'BUILD_BAD_MODE');
  t.match(mode.message, /unknown build mode "fast": use production or development/);

  const gone = await failure(buildProject({ location: join(empty, 'nope'), reporter: collecting() }));
  t.equal(gone.code, 'PROJECT_NOT_FOUND');

  const syntax = await project(t, {
    'src/index.ts': 'export * from "./mappings/bad";\n',
    'src/mappings/bad.ts': 'export function ok() {}\n\nexport function broken( {\n  return 1;\n}\n',
  });
  const syntaxErr = await failure(buildProject({ location: syntax, reporter: collecting() }));
  t.equal(syntaxErr.code, 'BUILD_SYNTAX_ERROR');
  t.match(syntaxErr.message, /^src\/mappings\/bad\.ts:4:3: \S.+$/);

  const relative = await project(t, { 'src/index.ts': 'import { x } from "./missing";\nexport const y = x;\n' });
  const relErr = await failure(buildProject({ location: relative, reporter: collecting() }));
  t.equal(relErr.code, 'BUILD_IMPORT_NOT_FOUND');
  t.match(relErr.message, /^src\/index\.ts imports "\.\/missing", which cannot be resolved: no such file/);

  const pkg = await project(t, {
    'src/index.ts': 'export * from "./mappings/uses-lib";\n',
    'src/mappings/uses-lib.ts': 'import { ethers } from "ethers";\nexport const v = ethers.version;\n',
  });
  const pkgErr = await failure(buildProject({ location: pkg, reporter: collecting() }));
  t.equal(pkgErr.code, 'BUILD_IMPORT_NOT_FOUND');
  t.match(pkgErr.message, /^src\/mappings\/uses-lib\.ts imports "ethers", which cannot be resolved: the package is not installed: run npm install ethers in /);
});

t.test('a Node module the sandbox does not provide builds, with a warning', async (t) => {
  const dir = await project(t, { 'src/index.ts': 'import { readFileSync } from "fs";\nexport const read = () => readFileSync;\n' });
  const reporter = collecting();
  await buildProject({ location: dir, reporter });
  t.match(await readFile(join(dir, 'dist', 'index.js'), 'utf8'), /require\(["']fs["']\)/);
  t.match(
    reporter.warnings.join('\n'),
    /src\/index\.ts imports "fs": the sandbox provides only assert, buffer, crypto, events, path, stream, url, util; .*--unsafe/,
  );
});

t.test('code without visible side effects runs as written: a busy-wait loop is kept, in both modes', async (t) => {
  const dir = await project(t, {
    'src/index.ts': [
      'import { spin } from "./spin.js";',
      'export function handle(ms: number): string {',
      '  const until = Date.now() + ms;',
      '  while (Date.now() < until) {}',
      '  spin(ms);',
      '  return "done";',
      '}',
    ].join('\n'),
    // a loop in a helper module, and an unused export beside it
    'src/spin.ts':
      'export function spin(ms: number): void {\n  const until = Date.now() + ms;\n  for (;;) { if (Date.now() >= until) break; }\n}\nexport const unused = 1;\n',
  });
  for (const mode of ['production', 'development'] as const) {
    await buildProject({ location: dir, mode, reporter: collecting() });
    const exports = evaluateBundle(await readFile(join(dir, 'dist', 'index.js'), 'utf8'), {});
    const started = performance.now();
    t.equal((exports.handle as (ms: number) => string)(40), 'done');
    t.ok(performance.now() - started >= 79, `${mode}: both loops waited (${Math.round(performance.now() - started)} ms)`);
  }
});

t.test('packages whose exports offer only node/browser entries (@polkadot/util-crypto) build as SubQuery builds them, and run in the sandbox', async (t) => {
  const dir = await project(t, {
    'src/index.ts': [
      'import { decodeAddress, encodeAddress, blake2AsHex } from "@polkadot/util-crypto";',
      'import { u8aToHex, stringToU8a } from "@polkadot/util";',
      'export async function handle(): Promise<void> {',
      '  const address = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";',
      '  const key = u8aToHex(decodeAddress(address));',
      '  await store.set("A", "a", { id: "a", key, kusama: encodeAddress(key, 2), hash: blake2AsHex(stringToU8a("idx")) });',
      '}',
    ].join('\n'),
  });
  // the project's own node_modules, as `npm install` leaves it: this repository's @polkadot packages
  await symlink(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
  await buildProject({ location: dir, reporter: collecting() });
  const fake = createFakeHost();
  const sb = await createSandbox({
    code: await readFile(join(dir, 'dist', 'index.js'), 'utf8'),
    fileName: join(dir, 'dist', 'index.js'),
    prelude: createPreludeCache(),
    timeoutMs: 5000,
    host: fake.host,
  });
  t.teardown(() => sb.dispose());
  await sb.runBlock({ block: block(1), logs: [] }, [{ handler: 'handle', kind: 'block' }]);
  const key = u8aToHex(decodeAddress('5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY'));
  t.same(fake.calls.at(-1), ['set', 'A', 'a', { id: 'a', key, kusama: encodeAddress(key, 2), hash: blake2AsHex(stringToU8a('idx')) }]);
});

t.test('an installed package whose exports lack the conditions idx build resolves with: the message names them', async (t) => {
  const dir = await project(t, {
    'src/index.ts': 'import { x } from "browser-only";\nexport const y = x;\n',
    'node_modules/browser-only/package.json': JSON.stringify({ name: 'browser-only', exports: { '.': { browser: './b.js', 'react-native': './rn.js' } } }),
    'node_modules/browser-only/b.js': 'export const x = 1;\n',
  });
  const err = await failure(buildProject({ location: dir, reporter: collecting() }));
  t.equal(err.code, 'BUILD_IMPORT_NOT_FOUND');
  t.match(
    err.message,
    /^src\/index\.ts imports "browser-only", which cannot be resolved: the package browser-only is installed but its package\.json "exports" offers "\." only under the conditions browser, react-native, none of which idx build resolves with \(default, module, import, require, node\)$/,
  );
});

t.test('the manifest: a build without one is refused; one naming handlers the bundle does not export is built with a warning naming each', async (t) => {
  const none = await project(t, { 'src/index.ts': 'export const x = 1;\n', 'schema.graphql': 'type T @entity { id: ID! }\n' }, { defaultManifest: false });
  const missing = await failure(buildProject({ location: none, reporter: collecting() }));
  t.equal(missing.code, 'MANIFEST_NOT_FOUND');
  t.match(missing.message, `no project manifest in ${none}`);
  t.notOk(existsSync(join(none, 'dist')), 'refused before bundling');

  const manifest = (handlers: string[], templateHandlers: string[] = []) =>
    [
      NO_HANDLER_MANIFEST['project.yaml'].replace('dataSources: []\n', ''),
      'dataSources:',
      '  - kind: ethereum/Runtime',
      '    startBlock: 1',
      '    mapping:',
      '      file: ./dist/index.js',
      '      handlers:',
      ...handlers.map((h) => `        - { kind: ethereum/BlockHandler, handler: ${h} }`),
      ...(templateHandlers.length === 0
        ? []
        : [
            'templates:',
            '  - kind: ethereum/Runtime',
            '    name: Pool',
            '    mapping:',
            '      file: ./dist/index.js',
            '      handlers:',
            ...templateHandlers.map((h) => `        - { kind: ethereum/BlockHandler, handler: ${h} }`),
          ]),
      '',
    ].join('\n');
  const files = {
    'schema.graphql': NO_HANDLER_MANIFEST['schema.graphql'],
    'src/index.ts': 'export * from "./mappings/blocks";\n',
    'src/mappings/blocks.ts': 'export async function handleBlock(): Promise<void> {}\nexport async function handlePool(): Promise<void> {}\n',
  };
  // built, as SubQuery's CLI builds it: its node and idx-node stop only at a block that calls such a handler
  const bad = await project(t, { ...files, 'project.yaml': manifest(['handleBlock', 'handleBlok', 'handleMint'], ['handlePool', 'handlepool']) });
  const warned = collecting();
  t.same(
    (await buildProject({ location: bad, reporter: warned })).entries.map((e) => e.name),
    ['index'],
    'built',
  );
  t.equal(warned.warnings.length, 1, 'one warning');
  const warning = warned.warnings[0] ?? '';
  t.match(warning, /idx-node stops at the first block that calls one, as SubQuery's node does/);
  t.match(warning, /dataSources\[0\]\.mapping\.handlers\[1\]\.handler "handleBlok" is not exported by .*dist\/index\.js \(did you mean "handleBlock"\?\)/);
  t.match(warning, /dataSources\[0\]\.mapping\.handlers\[2\]\.handler "handleMint" is not exported by .*dist\/index\.js\n/);
  t.match(warning, /templates\[0\]\.mapping\.handlers\[1\]\.handler "handlepool" is not exported by .*\(did you mean "handlePool"\?\)/);
  t.notMatch(warning, /"handleBlock" is not/);

  const good = await project(t, { ...files, 'project.yaml': manifest(['handleBlock'], ['handlePool']) });
  const quiet = collecting();
  t.same(
    (await buildProject({ location: good, reporter: quiet })).entries.map((e) => e.name),
    ['index'],
    'every handler exported: built',
  );
  t.same(quiet.warnings, [], 'without a warning');
});
