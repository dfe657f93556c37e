import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { parse } from 'yaml';
import { ValidationError } from '../../domain/errors.ts';
import { validateManifest } from '../../domain/project/validate-manifest.ts';
import { compileProjectTs, loadProject, manifestToYaml } from './load-project.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

const STARTER_YAML = readFileSync(join(fixture('erc20-yaml'), 'project.yaml'), 'utf8');

/** `path:line:column: message` of each problem, as the user reads them. */
const located = (err: unknown) => (err as ValidationError).problems.map((p) => `${p.path}:${p.line}:${p.column}: ${p.message}`);

t.test('the SubQuery ERC20 starter loads the same from project.ts, project.yaml and project.json', async (t) => {
  const fromTs = await loadProject(fixture('erc20-ts'));
  const fromYaml = await loadProject(fixture('erc20-yaml'));
  const fromJson = await loadProject(fixture('erc20-json'));
  t.equal(fromTs.manifestPath, join(fixture('erc20-ts'), 'project.ts'));
  t.equal(fromTs.root, fixture('erc20-ts'));
  t.equal(fromYaml.manifestPath, join(fixture('erc20-yaml'), 'project.yaml'));
  t.equal(fromJson.manifestPath, join(fixture('erc20-json'), 'project.json'));
  t.same(fromYaml.manifest, fromTs.manifest);
  t.same(fromJson.manifest, fromTs.manifest);

  const m = fromTs.manifest;
  // chainId and endpoints come from .env through the dotenv shim
  t.same(m.network, { chainId: '1', endpoints: [{ url: 'https://eth.llamarpc.com' }, { url: 'https://ethereum-rpc.publicnode.com' }] });
  t.same(m.dataSources[0]!.assets, { erc20: { file: './abis/erc20.abi.json' } });
  t.same(
    m.dataSources[0]!.mapping.handlers.map((h) => h.kind),
    ['ethereum/TransactionHandler', 'ethereum/LogHandler'],
  );
  t.same(m.dataSources[0]!.options, { abi: 'erc20', address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2' });
  // raw keeps the manifest as read, with the Map made a plain object
  t.same((fromTs.raw as any).dataSources[0].assets, { erc20: { file: './abis/erc20.abi.json' } });
  t.equal((fromTs.raw as any).network.endpoint.length, 2);
});

t.test("project.ts sees process.env, but its dotenv changes stay out of this process's env", async (t) => {
  t.equal(process.env.ENDPOINT, undefined);
  await loadProject(fixture('erc20-ts'));
  t.equal(process.env.ENDPOINT, undefined);
  t.equal(process.env.CHAIN_ID, undefined);
  // dotenv does not overwrite variables already set
  const preset = await loadProject(fixture('erc20-ts'), { env: { CHAIN_ID: '11155111' } });
  t.equal(preset.manifest.network?.chainId, '11155111');
  // NODE_ENV=staging makes the starter read .env.staging, which does not exist
  const err = await t.rejects(loadProject(fixture('erc20-ts'), { env: { NODE_ENV: 'staging' } }));
  t.same(
    (err as ValidationError).problems.map((p) => `${p.path}: ${p.message}`),
    ['network.chainId: required'],
  );
});

t.test('compileProjectTs returns the default export as plain data', async (t) => {
  const raw = (await compileProjectTs(join(fixture('erc20-ts'), 'project.ts'))) as any;
  t.equal(raw.specVersion, '1.0.0');
  t.equal(raw.dataSources[0].kind, 'ethereum/Runtime');
  t.same(raw.dataSources[0].mapping.handlers[1], {
    kind: 'ethereum/LogHandler',
    handler: 'handleLog',
    filter: { topics: ['Transfer(address indexed from, address indexed to, uint256 amount)'] },
  });
  t.notOk(raw.dataSources[0].assets instanceof Map);
});

t.test('finding the manifest', async (t) => {
  const dir = t.testdir({
    both: { 'project.ts': 'export default { from: "ts" };', 'project.yaml': 'from: yaml\n' },
    yml: { 'project.yml': STARTER_YAML },
    json: { 'project.json': '{}' },
    custom: { 'project-sepolia.yaml': STARTER_YAML },
    empty: { 'README.md': 'nothing here' },
    other: { 'project.toml': 'x = 1' },
  });
  const tsFirst = await t.rejects(loadProject(join(dir, 'both')));
  t.match((tsFirst as Error).message, `${join(dir, 'both', 'project.ts')} is invalid`, 'project.ts is preferred over project.yaml');
  t.equal((await loadProject(join(dir, 'yml'))).manifestPath, join(dir, 'yml', 'project.yml'));
  t.equal((await loadProject(join(dir, 'custom'), { manifestFile: 'project-sepolia.yaml' })).manifestPath, join(dir, 'custom', 'project-sepolia.yaml'));
  t.equal((await loadProject(join(dir, 'custom', 'project-sepolia.yaml'))).manifestPath, join(dir, 'custom', 'project-sepolia.yaml'), 'a file path');
  await t.rejects(loadProject(join(dir, 'json')), { code: 'VALIDATION_FAILED' });

  await t.rejects(loadProject(join(dir, 'empty')), {
    code: 'MANIFEST_NOT_FOUND',
    message: `no project manifest in ${join(dir, 'empty')}: looked for project.ts, project.yaml, project.yml, project.json and subquery-multichain.(ts|yaml|yml|json); give the manifest file itself, or run idx init to create a project`,
  });
  await t.rejects(loadProject(join(dir, 'custom'), { manifestFile: 'project-mainnet.yaml' }), {
    code: 'MANIFEST_NOT_FOUND',
    message: `manifest ${join(dir, 'custom', 'project-mainnet.yaml')} does not exist`,
  });
  await t.rejects(loadProject(join(dir, 'missing')), { code: 'PROJECT_NOT_FOUND', message: `project location ${join(dir, 'missing')} does not exist` });
  await t.rejects(loadProject(join(dir, 'other', 'project.toml')), {
    code: 'MANIFEST_UNSUPPORTED_FORMAT',
    message: /unsupported manifest format "project.toml"; use a .ts, .yaml, .yml or .json file/,
  });
});

t.test('YAML: syntax errors and validation problems carry line and column', async (t) => {
  const dir = t.testdir({
    syntax: { 'project.yaml': 'specVersion: 1.0.0\nnetwork:\n  chainId: "1\n' },
    tabs: { 'project.yaml': 'specVersion: 1.0.0\nschema:\n\tfile: x\n' },
    invalid: {
      'project.yaml': STARTER_YAML.replace('startBlock: 4719568', 'startBlock: latest')
        .replace("  chainId: '1'\n", '')
        .replace('kind: ethereum/LogHandler', 'kind: ethereum/EventHandler'),
    },
    hex: {
      'project.yaml': STARTER_YAML.replace("address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'", 'address: 0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'),
    },
  });
  const syntax = await t.rejects(loadProject(join(dir, 'syntax')), { code: 'VALIDATION_FAILED' });
  // the yaml parser places an unclosed quote where the file ends
  t.same(located(syntax), ['project.yaml:4:1: Missing closing "quote']);
  t.match((syntax as Error).message, 'project.yaml:4:1: Missing closing "quote');

  const tabs = await t.rejects(loadProject(join(dir, 'tabs')));
  t.equal((tabs as ValidationError).problems[0]!.line, 3);

  const invalid = await t.rejects(loadProject(join(dir, 'invalid')));
  t.same(located(invalid), [
    // a missing field is placed at its parent's key
    'network.chainId:17:1: required',
    'dataSources[0].startBlock:23:17: expected a non-negative integer',
    'dataSources[0].mapping.handlers[1].kind:37:17: expected one of ethereum/BlockHandler, ethereum/TransactionHandler, ethereum/LogHandler',
  ]);

  const hex = await loadProject(join(dir, 'hex'));
  t.equal(hex.manifest.dataSources[0]!.options?.address, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', 'an unquoted 0x address stays a string');
});

t.test('JSON: syntax errors and validation problems carry line and column', async (t) => {
  const json = readFileSync(join(fixture('erc20-json'), 'project.json'), 'utf8');
  const dir = t.testdir({
    comma: { 'project.json': '{\n  "specVersion": "1.0.0",\n  "schema": { "file": "./schema.graphql", },\n}\n' },
    truncated: { 'project.json': '{\n  "specVersion": "1.0.0"' },
    invalid: { 'project.json': json.replace('"startBlock": 4719568', '"startBlock": -1') },
  });
  const comma = await t.rejects(loadProject(join(dir, 'comma')));
  t.same(located(comma), ['project.json:3:43: trailing comma before "}"']);
  const truncated = await t.rejects(loadProject(join(dir, 'truncated')));
  t.same(located(truncated), ['project.json:2:25: unexpected end of file, expected "," or "}"']);
  const invalid = await t.rejects(loadProject(join(dir, 'invalid')));
  t.same(located(invalid), ['dataSources[0].startBlock:18:21: expected a non-negative integer']);
});

t.test('project.ts: imports, exports and clear errors', async (t) => {
  const manifest = (extra: string) => `{ ...base, ${extra} }`;
  const base = `const base = ${JSON.stringify(parse(STARTER_YAML))};\n`;
  const dir = t.testdir({
    local: {
      'project.ts': `import { EthereumHandlerKind } from "@subql/types-ethereum";
import type { EthereumProject } from "@subql/types-ethereum";
import { readFileSync } from "node:fs";
import { endpoints } from "./config/network";
import pkg from "./package.json";
import { marker } from "fake-helper";
${base}
const project: EthereumProject = ${manifest('name: pkg.name + "-" + marker, network: { chainId: "5", endpoint: endpoints }')};
project.dataSources[0].mapping.handlers[0].kind = EthereumHandlerKind.Block;
project.dataSources[0].mapping.handlers[0].filter = { modulo: 10 };
export default project;
`,
      config: { 'network.ts': 'export const endpoints: string[] = ["https://rpc.sepolia.example"];\n' },
      'package.json': '{ "name": "local-project" }',
      node_modules: { 'fake-helper': { 'package.json': '{ "name": "fake-helper", "main": "index.js" }', 'index.js': 'exports.marker = "helped";\n' } },
    },
    cjs: { 'project.ts': `${base}module.exports = base;\n` },
    compile: { 'project.ts': 'const project = {\n  specVersion: "1.0.0",,\n};\nexport default project;\n' },
    throws: {
      'project.ts': 'import { endpoints } from "./endpoints";\n\nexport default { endpoint: endpoints() };\n',
      'endpoints.ts': 'type Urls = string[];\n\nexport function endpoints(): Urls {\n  return process.env.MISSING_ENDPOINT!.split(",");\n}\n',
    },
    missing: { 'project.ts': 'import { something } from "idx-no-such-package";\nexport default something;\n' },
    missingLocal: { 'project.ts': 'import { x } from "./nowhere";\nexport default x;\n' },
    noDefault: { 'project.ts': 'export const project = { specVersion: "1.0.0" };\n' },
    asyncDefault: { 'project.ts': `${base}export default Promise.resolve(base);\n` },
  });

  const local = await loadProject(join(dir, 'local'));
  t.equal(local.manifest.name, 'local-project-helped', 'relative JSON and the project node_modules resolve');
  t.same(local.manifest.network, { chainId: '5', endpoints: [{ url: 'https://rpc.sepolia.example' }] }, 'relative TS imports compile');
  t.same(local.manifest.dataSources[0]!.mapping.handlers[0], { kind: 'ethereum/BlockHandler', handler: 'handleTransaction', filter: { modulo: 10 } });

  t.equal((await loadProject(join(dir, 'cjs'))).manifest.name, 'ethereum-subql-starter', 'module.exports works too');
  t.equal((await loadProject(join(dir, 'asyncDefault'))).manifest.name, 'ethereum-subql-starter', 'a promised default is awaited');

  const compile = await t.rejects(loadProject(join(dir, 'compile')), { code: 'MANIFEST_COMPILE_FAILED' });
  t.match((compile as Error).message, /^project\.ts:2:24: Unexpected token `,`/);

  await t.rejects(loadProject(join(dir, 'throws')), {
    code: 'MANIFEST_EVALUATION_FAILED',
    message: `${join(dir, 'throws', 'endpoints.ts')}:4:40: project manifest failed while running: Cannot read properties of undefined (reading 'split')`,
  });
  await t.rejects(loadProject(join(dir, 'missing')), {
    code: 'MANIFEST_IMPORT_NOT_FOUND',
    message: /imports "idx-no-such-package", which is not installed in .*missing\/node_modules: run npm install in the project folder/,
  });
  await t.rejects(loadProject(join(dir, 'missingLocal')), { code: 'MANIFEST_IMPORT_NOT_FOUND', message: /imports "\.\/nowhere", but no such file exists/ });
  await t.rejects(loadProject(join(dir, 'noDefault')), {
    code: 'MANIFEST_NO_DEFAULT_EXPORT',
    message: `${join(dir, 'noDefault', 'project.ts')} exports no project: end it with \`export default project;\``,
  });
});

t.test('--network-endpoint: needs a network object, then replaces the endpoints', async (t) => {
  const dir = t.testdir({
    noNetwork: { 'project.yaml': STARTER_YAML.replace(/network:\n(\s+.*\n)+?dataSources:/, 'dataSources:') },
    ok: { 'project.yaml': STARTER_YAML },
  });
  const err = await t.rejects(loadProject(join(dir, 'noNetwork'), { networkEndpoints: ['http://127.0.0.1:8545'] }), { code: 'VALIDATION_FAILED' });
  t.same(
    (err as ValidationError).problems.map((p) => p.path),
    ['network', 'network.network'],
  );
  const ok = await loadProject(join(dir, 'ok'), { networkEndpoints: ['http://127.0.0.1:8545', 'http://127.0.0.1:8546'] });
  t.same(ok.manifest.network?.endpoints, [{ url: 'http://127.0.0.1:8545' }, { url: 'http://127.0.0.1:8546' }]);
});

t.test('manifestToYaml writes a project.yaml that reads back the same', async (t) => {
  const { manifest, raw } = await loadProject(fixture('erc20-ts'));
  const fromManifest = manifestToYaml(manifest);
  t.same(validateManifest(parse(fromManifest), 'project.yaml'), manifest);
  t.match(fromManifest, 'address: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"', 'hex strings are quoted so YAML readers keep them strings');
  t.match(fromManifest, 'chainId: "1"');
  t.match(fromManifest, 'endpoint:\n    - https://eth.llamarpc.com\n', "written as SubQuery's endpoint field");
  t.notMatch(fromManifest, 'endpoints');
  t.same(validateManifest(parse(manifestToYaml(raw)), 'project.yaml'), manifest);

  const withHeaders = { ...manifest, network: { chainId: '1', endpoints: [{ url: 'https://a.example', headers: { k: 'v' } }, { url: 'https://b.example' }] } };
  const yaml = manifestToYaml(withHeaders);
  t.same(parse(yaml).network, { chainId: '1', endpoint: { 'https://a.example': { headers: { k: 'v' } }, 'https://b.example': {} } });
  t.same(validateManifest(parse(yaml), 'project.yaml'), withHeaders);
});
