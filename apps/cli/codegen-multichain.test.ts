import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { idxCli, projectFolder } from '../../test/support/idx-cli.ts';

const event = (name: string, inputs: [string, string][]) => ({
  type: 'event',
  name,
  anonymous: false,
  inputs: inputs.map(([n, type]) => ({ name: n, type, indexed: false })),
});
const ERC20 = [
  event('Transfer', [
    ['from', 'address'],
    ['to', 'address'],
    ['value', 'uint256'],
  ]),
];
const BRIDGE = [
  event('Deposited', [
    ['account', 'address'],
    ['amount', 'uint256'],
  ]),
];
const POOL = [
  event('Swap', [
    ['sender', 'address'],
    ['amount0', 'int256'],
  ]),
];

const chain = (chainId: string, assets: Record<string, string>, abi: string, extra = '') => `
specVersion: 1.0.0
name: chain-${chainId}
schema: { file: ./schema.graphql }
network: { chainId: "${chainId}", endpoint: ["http://127.0.0.1:8545"] }
dataSources:
  - kind: ethereum/Runtime
    startBlock: 1
    options: { abi: ${abi}, address: "0x5FbDB2315678afecb367f032d93F642f64180aa3" }
    assets: { ${Object.entries(assets)
      .map(([name, file]) => `${name}: { file: ${file} }`)
      .join(', ')} }
    mapping:
      file: ./dist/index.js
      handlers:
        - { kind: ethereum/LogHandler, handler: handleTransfer, filter: { topics: ["Transfer(address,address,uint256)"] } }
${extra}`;

const SCHEMA = 'type Transfer @entity {\n  id: ID!\n  chain: String!\n  value: BigInt!\n}\n';
const MULTICHAIN = 'specVersion: 1.0.0\nquery:\n  name: "@subql/query"\n  version: "*"\nprojects:\n  - ethereum.yaml\n  - polygon.yaml\n';
const TEMPLATE = `templates:
  - name: Pool
    kind: ethereum/Runtime
    options: { abi: pool }
    assets: { pool: { file: ./abis/pool.json } }
    mapping: { file: ./dist/index.js, handlers: [{ kind: ethereum/LogHandler, handler: handleTransfer }] }
`;

/** Two chains sharing schema.graphql and the mapping: Ethereum with the ERC20 and bridge ABIs, Polygon with its own copy of the ERC20 ABI and a pool template. */
const multichainFiles = (): Record<string, string> => ({
  'subquery-multichain.yaml': MULTICHAIN,
  'ethereum.yaml': chain('1', { erc20: './abis/erc20.json', bridge: './abis/bridge.json' }, 'erc20'),
  'polygon.yaml': chain('137', { erc20: './abis/polygon/erc20.json' }, 'erc20', TEMPLATE),
  'schema.graphql': SCHEMA,
  'abis/erc20.json': JSON.stringify(ERC20),
  'abis/bridge.json': JSON.stringify(BRIDGE),
  'abis/polygon/erc20.json': JSON.stringify({ contractName: 'ERC20', abi: ERC20 }),
  'abis/pool.json': JSON.stringify(POOL),
  'src/index.ts': [
    'import { Transfer } from "./types";',
    'import type { TransferLog } from "./types/abi-interfaces/Erc20";',
    'import { Bridge__factory, Pool__factory } from "./types/contracts";',
    'export const factories = [Bridge__factory, Pool__factory];',
    'export async function handleTransfer(log: TransferLog): Promise<void> {',
    '  await Transfer.create({ id: `${chainId}-${log.transactionHash}`, chain: chainId, value: log.args.value.toBigInt() }).save();',
    '}',
    'declare const chainId: string;',
  ].join('\n'),
});

t.test('codegen in a multichain folder: entity classes once, the ABIs of every chain', async (t) => {
  const dir = await projectFolder(t, multichainFiles(), 'idx-multichain-');
  const r = await idxCli(['codegen', '-l', dir]);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stderr, '');
  const types = join(dir, 'src', 'types');
  t.same(
    (await readdir(join(types, 'abi-interfaces'))).sort(),
    ['Bridge.ts', 'Erc20.ts', 'Pool.ts'],
    "the union of the chains' ABIs; one Erc20 for the two copies",
  );
  t.match(await readFile(join(types, 'abi-interfaces', 'Bridge.ts'), 'utf8'), /DepositedLog/);
  t.match(await readFile(join(types, 'abi-interfaces', 'Pool.ts'), 'utf8'), /SwapLog/);
  const contracts = await readFile(join(types, 'contracts', 'index.ts'), 'utf8');
  for (const name of ['Bridge', 'Erc20', 'Pool']) t.equal(contracts.split(`export { ${name}__factory }`).length - 1, 1, `${name}__factory exported once`);
  t.ok(existsSync(join(types, 'models', 'Transfer.ts')));
  t.match(await readFile(join(types, 'datasources.ts'), 'utf8'), /createPoolDatasource/, 'the templates of every chain');
  t.match(r.stdout, /generated 1 entity, 3 ABI interface\(s\)/);

  // -f naming the multichain manifest, and -l naming it, do the same
  for (const args of [
    ['codegen', '-l', dir, '-f', 'subquery-multichain.yaml'],
    ['codegen', '-l', join(dir, 'subquery-multichain.yaml')],
  ]) {
    await rm(types, { recursive: true });
    t.equal((await idxCli(args)).code, 0, args.join(' '));
    t.same((await readdir(join(types, 'abi-interfaces'))).sort(), ['Bridge.ts', 'Erc20.ts', 'Pool.ts']);
  }

  // idx build bundles the shared mapping once, which uses the generated types
  const b = await idxCli(['build', '-l', dir]);
  t.equal(b.code, 0, b.stderr);
  t.same(
    (await readdir(join(dir, 'dist'))).filter((f) => f.endsWith('.js')),
    ['index.js'],
  );
});

t.test('codegen in a multichain folder: chains must agree on the schema and on same-named ABIs', async (t) => {
  const clash = await projectFolder(
    t,
    { ...multichainFiles(), 'abis/polygon/erc20.json': JSON.stringify([...ERC20, event('Approval', [['owner', 'address']])]) },
    'idx-multichain-',
  );
  const r = await idxCli(['codegen', '-l', clash]);
  t.equal(r.code, 1);
  t.match(
    r.stderr,
    /error: .*abis\/(polygon\/)?erc20\.json and .*abis\/(polygon\/)?erc20\.json both give the ABI interface name Erc20 but hold different ABIs/,
  );

  const files = multichainFiles();
  const schemas = await projectFolder(
    t,
    { ...files, 'polygon.yaml': files['polygon.yaml']!.replace('./schema.graphql', './polygon.graphql'), 'polygon.graphql': SCHEMA },
    'idx-multichain-',
  );
  const s = await idxCli(['codegen', '-l', schemas]);
  t.equal(s.code, 1);
  t.match(s.stderr, /share one schema, but .*ethereum\.yaml names .*schema\.graphql and .*polygon\.yaml names .*polygon\.graphql/);

  const missing = await projectFolder(t, { ...files, 'subquery-multichain.yaml': `${MULTICHAIN}  - base.yaml\n` }, 'idx-multichain-');
  const m = await idxCli(['codegen', '-l', missing]);
  t.equal(m.code, 1);
  t.match(m.stderr, /subquery-multichain\.yaml: projects\[2\] names .*base\.yaml, which does not exist/);
});

t.test('build of a multichain project written in TypeScript writes each manifest as YAML', async (t) => {
  const chainTs = (chainId: string) =>
    [
      'import { EthereumDatasourceKind, EthereumHandlerKind, type EthereumProject } from "@subql/types-ethereum";',
      'const project: EthereumProject = {',
      `  specVersion: "1.0.0", name: "chain-${chainId}", schema: { file: "./schema.graphql" },`,
      `  network: { chainId: "${chainId}", endpoint: ["http://127.0.0.1:8545"] },`,
      '  dataSources: [{ kind: EthereumDatasourceKind.Runtime, startBlock: 3, mapping: { file: "./dist/index.js",',
      '    handlers: [{ kind: EthereumHandlerKind.Block, handler: "handleBlock" }] } }],',
      '};',
      'export default project;',
    ].join('\n');
  const dir = await projectFolder(t, {
    'subquery-multichain.ts':
      'export default { specVersion: "1.0.0", query: { name: "@subql/query", version: "*" }, projects: ["./chains/ethereum.ts", "polygon.yaml"] };\n',
    'chains/ethereum.ts': chainTs('1'),
    'polygon.yaml': chain('137', { erc20: './abis/erc20.json' }, 'erc20'),
    'chains/schema.graphql': SCHEMA,
    'schema.graphql': SCHEMA,
    'abis/erc20.json': JSON.stringify(ERC20),
    'src/index.ts': 'export async function handleBlock(): Promise<void> {}\nexport async function handleTransfer(): Promise<void> {}\n',
  });
  const r = await idxCli(['build', '-l', dir]);
  t.equal(r.code, 0, r.stderr);
  const ethereum = parse(await readFile(join(dir, 'dist', 'chains', 'ethereum.yaml'), 'utf8'));
  t.match(ethereum, { name: 'chain-1', network: { chainId: '1' }, dataSources: [{ startBlock: 3 }] });
  const multichain = parse(await readFile(join(dir, 'dist', 'subquery-multichain.yaml'), 'utf8'));
  t.same(multichain, { specVersion: '1.0.0', query: { name: '@subql/query', version: '*' }, projects: ['./chains/ethereum.yaml', 'polygon.yaml'] });
  t.notOk(existsSync(join(dir, 'dist', 'polygon.yaml')), 'a YAML chain manifest is used as it is');
});
