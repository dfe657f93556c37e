import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import type { ValidationError } from '../../domain/errors.ts';
import { loadProject } from '../../infra/project/load-project.ts';
import { idxCli, projectFolder } from '../../test/support/idx-cli.ts';

const ABI = JSON.stringify([{ type: 'event', name: 'Transfer', anonymous: false, inputs: [{ name: 'value', type: 'uint256', indexed: false }] }]);

// What SubQuery starters hold before the user fills them in: an endpoint list in one string (from a
// comma-separated variable), a value with a trailing tab, placeholder and ENS-like addresses.
const PROJECT_TS = [
  'import { EthereumDatasourceKind, EthereumHandlerKind, type EthereumProject } from "@subql/types-ethereum";',
  'const project: EthereumProject = {',
  '  specVersion: "1.0.0", name: "placeholders", schema: { file: "./schema.graphql" },',
  '  network: { chainId: "1", endpoint: ["https://eth.example,https://eth2.example", "https://eth3.example\\t"] },',
  '  dataSources: [',
  '    { kind: EthereumDatasourceKind.Runtime, startBlock: 3, options: { abi: "token", address: "0xSomething" },',
  '      assets: new Map([["token", { file: "./abis/token.json" }]]),',
  '      mapping: { file: "./dist/index.js", handlers: [{ kind: EthereumHandlerKind.Event, handler: "handleTransfer" }] } },',
  '    { kind: EthereumDatasourceKind.Runtime, startBlock: 3, options: { abi: "token", address: "token.eth" },',
  '      assets: new Map([["token", { file: "./abis/token.json" }]]),',
  '      mapping: { file: "./dist/index.js", handlers: [{ kind: EthereumHandlerKind.Event, handler: "handleTransfer" }] } },',
  '  ],',
  '};',
  'export default project;',
].join('\n');

const FIELDS = ['network.endpoint[0]', 'network.endpoint[1]', 'dataSources[0].options.address', 'dataSources[1].options.address'];

t.test('codegen and build go on past fields only idx-node reads, warning about each; idx-node still refuses them', async (t) => {
  const dir = await projectFolder(
    t,
    {
      'project.ts': PROJECT_TS,
      'schema.graphql': 'type Transfer @entity {\n  id: ID!\n}\n',
      'abis/token.json': ABI,
      'src/index.ts': 'export async function handleTransfer(): Promise<void> {}\n',
    },
    'idx-warnings-',
  );
  const manifest = join(dir, 'project.ts');
  const expectWarnings = (stderr: string, command: string) => {
    const lines = stderr.trim().split('\n');
    t.equal(lines.length, FIELDS.length, `${command}: one warning per field`);
    for (const [i, field] of FIELDS.entries()) {
      t.ok(lines[i]!.startsWith(`warning: ${manifest}: ${field}: expected`), `${command}: ${lines[i]}`);
      t.match(lines[i]!, /idx-node will refuse it/);
    }
  };

  const codegen = await idxCli(['codegen', '-l', dir]);
  t.equal(codegen.code, 0, codegen.stderr);
  expectWarnings(codegen.stderr, 'codegen');
  t.match(codegen.stderr, /network\.endpoint\[0\]: .*several URLs in one string/);
  t.ok(existsSync(join(dir, 'src', 'types', 'abi-interfaces', 'Token.ts')));

  const build = await idxCli(['build', '-l', dir]);
  t.equal(build.code, 0, build.stderr);
  expectWarnings(build.stderr, 'build');
  t.ok(existsSync(join(dir, 'dist', 'index.js')));
  t.match(await readFile(join(dir, 'dist', 'project.yaml'), 'utf8'), /address: 0xSomething/, 'the manifest is written out as it is');

  // idx-node's loading refuses the manifest, naming the same fields
  const err = (await loadProject(dir).catch((e: unknown) => e)) as ValidationError;
  t.equal(err.code, 'VALIDATION_FAILED');
  t.same(
    err.problems.map((p) => p.path),
    FIELDS,
  );
  t.match(err.message, `${manifest} is invalid`);
});

t.test('codegen still fails on what it reads', async (t) => {
  const dir = await projectFolder(
    t,
    {
      'project.yaml': [
        'specVersion: 1.0.0',
        'schema: { file: ./schema.graphql }',
        'network: { chainId: "1", endpoint: "https://a.example,https://b.example" }',
        'dataSources:',
        '  - kind: ethereum/Runtime',
        '    options: { abi: tokn, address: "0xSomething" }',
        '    assets: { token: { file: ./abis/token.json } }',
        '    mapping: { file: ./dist/index.js, handlers: [{ kind: ethereum/EventHandler, handler: handleTransfer }] }',
      ].join('\n'),
      'schema.graphql': 'type Transfer @entity {\n  id: ID!\n}\n',
      'abis/token.json': ABI,
    },
    'idx-warnings-',
  );
  const r = await idxCli(['codegen', '-l', dir]);
  t.equal(r.code, 1);
  t.match(r.stderr, /error: .*project\.yaml is invalid:\n {2}- dataSources\[0\]\.options\.abi:6:21: "tokn" is not an entry of assets/);
  t.match(r.stderr, /handlers\[0\]\.kind:8:\d+: expected one of/);
  t.match(r.stderr, /warning: .*project\.yaml: network\.endpoint:3:\d+: /, 'the others are still told');
});
