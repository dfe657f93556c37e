import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { decodeFunctionData, encodeFunctionResult, getAddress } from 'viem/utils';
import type { Abi } from 'viem';
import { IdxError, ValidationError } from '../../domain/errors.ts';
import { buildProject } from './build-project.ts';
import { codegen } from './codegen.ts';
import type { Reporter } from './reporter.ts';
import { createFakeStore, evaluateBundle } from '../../test/support/evaluate-bundle.ts';

const TSC = resolve(fileURLToPath(import.meta.url), '../../../node_modules/typescript/bin/tsc');

const SCHEMA = `
enum TokenKind { FUNGIBLE, NFT }

type Meta @jsonField {
  label: String!
  tags: [String]
  kind: TokenKind
}

type Owner @entity {
  id: ID!
  createdAt: BigInt!
  updatedAt: Date
  tokens: [Token] @derivedFrom(field: "owner")
}

type Token @entity {
  id: ID!
  symbol: String! @index(unique: true)
  owner: Owner!
  previousOwner: Owner
  kind: TokenKind!
  supply: BigInt! @index
  decimals: Int!
  price: Float
  ratio: BigDecimal
  active: Boolean!
  created: Date!
  raw: Bytes
  extra: JSON
  meta: Meta
  aliases: [String!]
}
`;

/** Events and functions that exercise the ABI type mapping: small ints, tuples, arrays, overloads, indexed strings. */
const ABI = [
  {
    type: 'event',
    name: 'Minted',
    inputs: [
      { name: 'to', type: 'address', indexed: true },
      { name: 'tag', type: 'string', indexed: true },
      { name: 'amount', type: 'uint256', indexed: false },
      { name: 'level', type: 'uint8', indexed: false },
      { name: '', type: 'bytes32', indexed: false },
    ],
  },
  {
    type: 'function',
    name: 'configure',
    stateMutability: 'nonpayable',
    inputs: [
      {
        name: 'config',
        type: 'tuple',
        components: [
          { name: 'fee', type: 'uint48' },
          { name: 'cap', type: 'int128' },
          { name: 'holders', type: 'address[]' },
        ],
      },
      { name: 'flags', type: 'bool[2]' },
    ],
    outputs: [],
  },
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ name: '', type: 'uint256' }] },
  {
    type: 'function',
    name: 'info',
    stateMutability: 'view',
    inputs: [{ name: 'id', type: 'uint256' }],
    outputs: [
      { name: 'level', type: 'uint8' },
      { name: 'label', type: 'string' },
      {
        name: 'pair',
        type: 'tuple',
        components: [
          { name: 'a', type: 'uint256' },
          { name: 'b', type: 'address' },
        ],
      },
    ],
  },
  { type: 'function', name: 'safeTransfer', stateMutability: 'nonpayable', inputs: [{ name: 'to', type: 'address' }], outputs: [] },
  {
    type: 'function',
    name: 'safeTransfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'data', type: 'bytes' },
    ],
    outputs: [],
  },
];

const MANIFEST = `
specVersion: 1.0.0
schema: { file: ./schema.graphql }
network: { chainId: "1", endpoint: http://127.0.0.1:8545 }
dataSources:
  - kind: ethereum/Runtime
    startBlock: 1
    options: { abi: token, address: "0x5FbDB2315678afecb367f032d93F642f64180aa3" }
    assets: { token: { file: ./abis/token-v2.json }, notes: { file: ./abis/notes.json } }
    mapping:
      file: ./dist/index.js
      handlers:
        - { kind: ethereum/LogHandler, handler: handleMint, filter: { topics: ["Minted(address,string,uint256,uint8,bytes32)"] } }
templates:
  - name: Pool
    kind: ethereum/Runtime
    options: { abi: token }
    assets: { token: { file: ./abis/token-v2.json } }
    mapping: { file: ./dist/index.js, handlers: [{ kind: ethereum/BlockHandler, handler: handleBlock }] }
`;

/** A mapping using every generated piece, so tsc checks them together and the bundle runs them. */
const MAPPING = `
import { Token, TokenKind, Owner, createPoolDatasource, type Meta } from "../types";
import { TokenV2__factory } from "../types/contracts";
import type { BigNumber, MintedLog, ConfigureTransaction, SafeTransfer_addressTransaction, SafeTransfer_address_bytesTransaction } from "../types/abi-interfaces/TokenV2";

export async function handleMint(log: MintedLog): Promise<void> {
  const level: number = log.args.level;
  const tagHash: string = log.args.tag.hash;
  const unnamed: string = log.args[4];
  const meta: Meta = { label: "m", tags: ["a"], kind: TokenKind.NFT };
  const token = new Token("t1", "TKN", log.args.to, TokenKind.FUNGIBLE, log.args.amount.toBigInt(), level, true, new Date(0));
  token.meta = meta;
  token.extra = { any: tagHash + unnamed };
  await token.save();
  const owner = new Owner(log.args.to, 5n);
  owner.updatedAt = new Date(0);
  await owner.save();
  const bySymbol: Token | undefined = await Token.getBySymbol("TKN");
  const bySupply: Token[] = await Token.getBySupply(5n, { limit: 10, orderBy: "decimals", orderDirection: "DESC" });
  const byOwner: Token[] = await Token.getByOwnerId(log.args.to);
  const byPrevious: Token[] = await Token.getByPreviousOwnerId(log.args.to);
  const byFields: Token[] = await Token.getByFields([["kind", "=", TokenKind.NFT], ["decimals", "in", [1, 2]]], { limit: 1 });
  const got: Token | undefined = await Token.get("t1");
  logger.info(String(bySymbol?.symbol) + bySupply.length + byOwner.length + byPrevious.length + byFields.length + String(got?.id));
  await createPoolDatasource({ address: log.address });
  await Token.remove("t1");
}

export async function handleRead(log: MintedLog): Promise<string> {
  const token = TokenV2__factory.connect(log.address, api);
  const balance: BigNumber = await token.balanceOf(log.args.to);
  const [level, label, pair] = await token.info(7n);
  const byKey: string = (await token.info(7)).label;
  const b: string = pair.b;
  const viaFunctions: [BigNumber] = await token.functions.balanceOf(log.args.to);
  const bySignature: BigNumber = await token["balanceOf(address)"](log.args.to, { blockTag: 1 });
  return [balance.toBigInt(), level, label, byKey, pair.a.toBigInt(), b, viaFunctions[0].toBigInt(), bySignature.toBigInt()].join(" ");
}

export function handleCalls(a: ConfigureTransaction, b: SafeTransfer_addressTransaction, c: SafeTransfer_address_bytesTransaction): string {
  const fee: number = a.args.config.fee;
  const cap: bigint = a.args.config.cap.toBigInt();
  const holders: string[] = a.args[0].holders;
  const flags: boolean[] = a.args.flags;
  return [fee, cap, holders, flags, b.args.to, c.args.data].join();
}

/** The Pool template's handler: idx build warns of a manifest naming a handler the bundle does not export. */
export async function handleBlock(): Promise<void> {}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2022'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    strict: true,
    noEmit: true,
    types: [],
    isolatedModules: true,
  },
  include: ['src'],
};

function collecting(): Reporter & { infos: string[]; warnings: string[] } {
  const infos: string[] = [];
  const warnings: string[] = [];
  return { infos, warnings, info: (m) => void infos.push(m), warn: (m) => void warnings.push(m) };
}

async function project(t: Test, files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'idx-codegen-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(resolve(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const richProject = (t: Test) =>
  project(t, {
    'project.yaml': MANIFEST,
    'schema.graphql': SCHEMA,
    'abis/token-v2.json': JSON.stringify({ contractName: 'Token', abi: ABI }),
    'abis/notes.json': '{"not": "an abi"}',
    'src/index.ts': 'export * from "./mappings/token";\n',
    'src/mappings/token.ts': MAPPING,
    'tsconfig.json': JSON.stringify(TSCONFIG),
  });

t.test('codegen writes src/types as SubQuery projects import it', async (t) => {
  const dir = await richProject(t);
  const reporter = collecting();
  const result = await codegen({ location: dir, reporter });
  t.same(result.files, [
    'abi-interfaces/TokenV2.ts',
    'contracts/TokenV2.ts',
    'contracts/factories/TokenV2__factory.ts',
    'contracts/index.ts',
    'contracts/runtime.d.ts',
    'datasources.ts',
    'enums.ts',
    'ethereum.ts',
    'global.d.ts',
    'index.ts',
    'interfaces.ts',
    'models/Owner.ts',
    'models/Token.ts',
    'models/index.ts',
  ]);
  const types = join(dir, 'src', 'types');
  t.equal(
    await readFile(join(types, 'index.ts'), 'utf8'),
    '// Auto-generated by idx codegen, DO NOT EDIT\nexport * from "./models";\nexport * from "./enums";\nexport * from "./interfaces";\nexport * from "./datasources";\n',
  );
  const token = await readFile(join(types, 'models', 'Token.ts'), 'utf8');
  // required (non-null, non-derived) fields in declaration order, relations as <field>Id
  t.match(token, 'constructor(id: string, symbol: string, ownerId: string, kind: TokenKind, supply: bigint, decimals: number, active: boolean, created: Date)');
  t.match(token, 'public previousOwnerId?: string;');
  t.match(token, 'public aliases?: string[];');
  t.match(token, 'public meta?: Meta;');
  t.match(token, 'await store.set("Token", id.toString(), this);');
  t.notMatch(token, 'tokens', 'derived fields have no property');
  t.match(await readFile(join(types, 'models', 'Owner.ts'), 'utf8'), 'constructor(id: string, createdAt: bigint)', 'createdAt is a field like any other');
  t.match(await readFile(join(types, 'enums.ts'), 'utf8'), 'export enum TokenKind {\n  FUNGIBLE = "FUNGIBLE",\n  NFT = "NFT",\n}');
  t.match(await readFile(join(types, 'interfaces.ts'), 'utf8'), 'export interface Meta {\n  label: string;\n  tags?: string[];\n  kind?: TokenKind;\n}');
  t.match(reporter.infos.join('\n'), /generated 2 entities, 1 ABI interface/);

  t.test('the generated code typechecks with the mapping that uses it, nothing installed', async (t) => {
    const out = await new Promise<{ code: number; text: string }>((done) =>
      execFile(process.execPath, [TSC, '--noEmit', '-p', dir], (err, stdout, stderr) => done({ code: err ? 1 : 0, text: stdout + stderr })),
    );
    t.equal(out.code, 0, out.text);
  });

  // one build for both checks below: bundling viem for the contracts is the slow part
  const built = buildProject({ location: dir, mode: 'production', reporter: collecting() }).then(() => readFile(join(dir, 'dist', 'index.js'), 'utf8'));

  t.test('built, the model methods make the store calls SubQuery models make', async (t) => {
    const store = createFakeStore();
    const created: unknown[] = [];
    const exports = evaluateBundle(await built, {
      store: store.api,
      logger: { info: () => undefined },
      createDynamicDatasource: async (...args: unknown[]) => void created.push(args),
    });
    const args = Object.assign(['0xa1', { hash: '0xh', _isIndexed: true }, { toBigInt: () => 5n }, 3, '0x00'], {
      to: '0xa1',
      tag: { hash: '0xh', _isIndexed: true },
      amount: { toBigInt: () => 5n },
      level: 3,
    });
    await (exports.handleMint as (l: unknown) => Promise<void>)({ address: '0xc0', args });
    t.same(
      store.calls.map((c) => c.slice(0, 3)),
      [
        ['set', 'Token', 't1'],
        ['set', 'Owner', '0xa1'],
        ['getOneByField', 'Token', 'symbol'],
        ['getByField', 'Token', 'supply'],
        ['getByField', 'Token', 'ownerId'],
        ['getByField', 'Token', 'previousOwnerId'],
        [
          'getByFields',
          'Token',
          [
            ['kind', '=', 'NFT'],
            ['decimals', 'in', [1, 2]],
          ],
        ],
        ['get', 'Token', 't1'],
        ['remove', 'Token', 't1'],
      ],
    );
    t.same(store.calls[3], ['getByField', 'Token', 'supply', 5n, { limit: 10, orderBy: 'decimals', orderDirection: 'DESC' }]);
    t.match(store.calls[0]![3], { id: 't1', symbol: 'TKN', ownerId: '0xa1', kind: 'FUNGIBLE', supply: 5n, decimals: 3, active: true, meta: { label: 'm' } });
    t.match(store.calls[1]![3], { id: '0xa1', createdAt: 5n, updatedAt: new Date(0) });
    t.same(created, [['Pool', { address: '0xc0' }]]);
  });

  t.test('built, the contract factories call the contract through api, results as ethers gives them', async (t) => {
    const calls: unknown[] = [];
    const api = {
      async call(tx: { to: string; data: `0x${string}` }, blockTag?: unknown) {
        const { functionName, args } = decodeFunctionData({ abi: ABI as Abi, data: tx.data });
        calls.push([tx.to, functionName, args, blockTag]);
        if (functionName === 'balanceOf') return encodeFunctionResult({ abi: ABI as Abi, functionName, result: 1000n } as never);
        return encodeFunctionResult({
          abi: ABI as Abi,
          functionName,
          result: [3, 'gold', { a: 5n, b: '0x00000000000000000000000000000000000000b0' }],
        } as never);
      },
    };
    const exports = evaluateBundle(await built, { api });
    const out = await (exports.handleRead as (l: unknown) => Promise<string>)({
      address: '0x00000000000000000000000000000000000000c0',
      args: { to: '0x00000000000000000000000000000000000000a1' },
    });
    // addresses come back checksummed, as ethers gives them
    t.equal(out, `1000 3 gold gold 5 ${getAddress('0x00000000000000000000000000000000000000b0')} 1000 1000`);
    const a1 = getAddress('0x00000000000000000000000000000000000000a1');
    t.same(calls[0], ['0x00000000000000000000000000000000000000c0', 'balanceOf', [a1], undefined]);
    t.same(calls[1], ['0x00000000000000000000000000000000000000c0', 'info', [7n], undefined]);
    t.same(calls.at(-1), ['0x00000000000000000000000000000000000000c0', 'balanceOf', [a1], 1]);
  });
});

t.test('the ABI interfaces type args as ethers v5 decodes them', async (t) => {
  const dir = await richProject(t);
  await codegen({ location: dir, reporter: collecting() });
  const abi = await readFile(join(dir, 'src', 'types', 'abi-interfaces', 'TokenV2.ts'), 'utf8');
  t.match(abi, 'export type MintedEventArgs = [string, Indexed, BigNumber, number, string] & { to: string; tag: Indexed; amount: BigNumber; level: number };');
  t.match(abi, 'export type MintedLog = EthereumLog<MintedEventArgs> & { args: MintedEventArgs };');
  t.match(
    abi,
    'export type ConfigureCallArgs = [[number, BigNumber, Array<string>] & { fee: number; cap: BigNumber; holders: Array<string> }, Array<boolean>]',
  );
  t.match(abi, 'export type SafeTransfer_addressTransaction = ');
  t.match(abi, 'export type SafeTransfer_address_bytesTransaction = ');
  t.notOk(existsSync(join(dir, 'src', 'types', 'abi-interfaces', 'Notes.ts')), 'a JSON asset that is not an ABI is skipped');
});

t.test('global.d.ts is left out when the project has @subql/types-core, whose globals would clash', async (t) => {
  const dir = await richProject(t);
  await mkdir(join(dir, 'node_modules', '@subql', 'types-core'), { recursive: true });
  await writeFile(join(dir, 'node_modules', '@subql', 'types-core', 'package.json'), '{"name":"@subql/types-core"}');
  await mkdir(join(dir, 'src', 'types'), { recursive: true });
  await writeFile(join(dir, 'src', 'types', 'global.d.ts'), '// stale');
  await writeFile(join(dir, 'src', 'types', 'custom.ts'), 'export const mine = 1;\n');
  const reporter = collecting();
  const result = await codegen({ location: dir, reporter });
  t.notOk(result.files.includes('global.d.ts'));
  t.notOk(existsSync(join(dir, 'src', 'types', 'global.d.ts')), 'a stale generated file is removed');
  t.ok(existsSync(join(dir, 'src', 'types', 'custom.ts')), "the user's own files in src/types stay");
  t.match(reporter.infos.join('\n'), /@subql\/types-core is installed/);
});

t.test('codegen errors say what is wrong and where', async (t) => {
  const badSchema = await project(t, {
    'project.yaml': MANIFEST.replace(/templates:[\s\S]*$/, ''),
    'schema.graphql': 'type Token @entity {\n  id: ID!\n  owner: Ownr!\n}\n',
    'abis/token-v2.json': JSON.stringify(ABI),
    'abis/notes.json': '{}',
  });
  const err = await codegen({ location: badSchema, reporter: collecting() }).catch((e: unknown) => e);
  t.type(err, ValidationError);
  t.match((err as Error).message, /schema\.graphql:3:\d+: .*unknown type "Ownr"/);

  const badAbi = await project(t, {
    'project.yaml': MANIFEST.replace(/templates:[\s\S]*$/, ''),
    'schema.graphql': SCHEMA,
    'abis/token-v2.json': '{"abi": 5}',
    'abis/notes.json': '{}',
  });
  const abiErr = await codegen({ location: badAbi, reporter: collecting() }).catch((e: unknown) => e);
  t.type(abiErr, IdxError);
  t.match((abiErr as IdxError).message, /dataSources\[0\]\.assets\.token: .*token-v2\.json is not an ABI/);

  const noSchema = await project(t, { 'project.yaml': MANIFEST.replace(/templates:[\s\S]*$/, ''), 'abis/token-v2.json': '[]', 'abis/notes.json': '{}' });
  const schemaErr = await codegen({ location: noSchema, reporter: collecting() }).catch((e: unknown) => e);
  t.match((schemaErr as IdxError).code, 'SCHEMA_NOT_FOUND');
  t.match((schemaErr as IdxError).message, /cannot read the schema .*schema\.graphql/);
});
