import { readFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ApiPromise, HttpProvider } from '@polkadot/api';
import { TypeRegistry } from '@polkadot/types';
import type { RegisteredTypes } from '@polkadot/types/types';
import { hexToU8a, u8aToHex } from '@polkadot/util';
import { keccakAsU8a, sha256AsU8a } from '@polkadot/util-crypto';
import t from 'tap';
import { startSubstrateChain } from '../devchain/start-substrate-chain.ts';
import { createSubstrateWorkload } from '../devchain/substrate-workload.ts';
import { compileSubstrateSource, matchSubstrateHandlers } from '../domain/chains/substrate/match-substrate-handlers.ts';
import { createSubstrateSource, SYSTEM_EVENTS_KEY } from '../infra/chains/substrate/create-substrate-source.ts';
import { loadChainTypes } from '../infra/chains/substrate/load-chain-types.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { createPreludeCache } from '../infra/sandbox/create-prelude-cache.ts';
import { createSandbox } from '../infra/sandbox/create-sandbox.ts';
import { createFakeHost } from '../infra/sandbox/fixtures/fake-host.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { PROGRAM_BACKEND } from './support/node-backends.ts';
import { idxCli, REPO } from './support/idx-programs.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { projectFolder } from './support/idx-cli.ts';
import { indexInProcess, openIndexedDb } from './support/index-in-process.ts';
import { uniqueSchemaName } from './support/test-backends.ts';

// The registries idx makes with a project's chain types, on the node (which matches handlers with it) and in
// the sandbox (which hands mappings their values), against @polkadot/api's: an ApiPromise created with the same
// chain types, as @subql/node creates it, decoding the same blocks of the same runtime (specName statemine,
// spec version 900; the chain name from system_chain).

exitWhenDone();
const chain = await startSubstrateChain();
t.teardown(() => chain.close());
const w = await createSubstrateWorkload(chain);
t.teardown(() => w.close());
// block 2: a signed transfer; 3: a batch of two
await w.transfer('alice', w.accounts.bob, 10n ** 12n);
await w.block();
await w.batchAll('alice', [
  [w.accounts.charlie, 5n * 10n ** 10n],
  [w.accounts.bob, 7n * 10n ** 10n],
]);
await w.block();
const END = 3;
const chainName = (await w.api.rpc.system.chain()).toString();
const { specName, specVersion } = w.api.runtimeVersion;
t.equal(specName.toString(), 'statemine');
t.equal(specVersion.toNumber(), 900);

const SAMPLE = '0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20';
const NAMES = [
  ...['IdxTypes', 'IdxW1', 'IdxW2', 'IdxW3', 'IdxW4', 'IdxW5', 'IdxStruct'],
  ...['IdxSpecOld', 'IdxSpecNow', 'IdxSpecUpTo', 'IdxSpecLater', 'IdxChainOld', 'IdxChainNow', 'IdxOtherChain', 'IdxOtherSpec'],
  // types @polkadot/types-known gives statemine itself, and some the chain types override
  ...['TAssetConversion', 'ProxyType', 'DispatchErrorModule', 'Weight', 'Balance', 'AccountId', 'Address', 'LookupSource', 'AssetId'],
];

/** What a registry makes of things, as JSON; the same code runs in the sandbox, as a mapping, and here. */
const PROBE = `(registry, signed, eventsHex) => {
  const attempt = (f) => { try { return f(); } catch (e) { return 'error: ' + String(e.message).split('\\n')[0]; } };
  const bytes = new Uint8Array('${SAMPLE}'.slice(2).match(/../g).map((b) => parseInt(b, 16)));
  return {
    types: Object.fromEntries(${JSON.stringify(NAMES)}.map((n) => [n, attempt(() => { const v = registry.createType(n, bytes); return [v.toRawType(), v.toJSON()]; })])),
    hash: registry.hash(bytes).toHex(),
    block: signed.toJSON(),
    header: signed.block.header.hash.toHex(),
    extrinsics: signed.block.extrinsics.map((x) => ({ hash: x.hash.toHex(), method: x.method.toJSON(), signature: x.isSigned ? x.inner.signature.toJSON() : null })),
    events: registry.createType('Vec<EventRecord>', eventsHex).toJSON(),
    extensions: [registry.signedExtensions, registry.getSignedExtensionTypes(), registry.getSignedExtensionExtra()],
    alias: registry.knownTypes.typesAlias ?? null,
    properties: [registry.chainSS58, registry.chainDecimals, registry.chainTokens],
  };
}`;
const probe = new Function(`return ${PROBE}`)() as (registry: unknown, signed: unknown, eventsHex: string) => Record<string, unknown>;

const MAPPING = `
const probe = ${PROBE};
module.exports.onBlock = async (block) => {
  const n = block.block.header.number.toNumber();
  const signed = await api.rpc.chain.getBlock();
  const events = (await api.rpc.state.getStorage('${SYSTEM_EVENTS_KEY}')).toHex();
  // a method only the third config's bundle defines
  const custom = await api.rpc.idx.header().then((h) => h.toJSON(), (e) => 'error: ' + e.message);
  await store.set('Probe', String(n), { id: String(n), json: JSON.stringify({ ...probe(api.registry, signed, events), custom }) });
};`;

// Every field of the chain types, each layer defining what the next overrides (getSpecTypes: bundle spec <
// bundle chain < typesSpec < typesChain < types), versioned types in and out of spec version 900, an alias per
// layer, a signed extension redefined (its field renamed), a JSON-RPC method, and a hasher function.
const ALL = `
const { createHash } = require('crypto');
const layer = (n, type) => Object.fromEntries(['IdxW1', 'IdxW2', 'IdxW3', 'IdxW4', 'IdxW5'].slice(n - 1).map((name) => [name, type]));
exports.default = {
  types: { IdxTypes: 'Compact<u32>', IdxStruct: { a: 'u8', b: 'IdxW1' }, AssetId: 'u64', ...layer(5, 'u128') },
  typesAlias: { balances: { Status: 'u8' } },
  typesChain: { ${JSON.stringify(chainName)}: layer(4, 'u64'), 'Another Chain': { IdxOtherChain: 'u8' } },
  typesSpec: { statemine: layer(3, 'u32'), westmint: { IdxOtherSpec: 'u8' } },
  typesBundle: {
    spec: {
      statemine: {
        types: [
          { minmax: [0, 899], types: { IdxSpecOld: 'u8' } },
          { minmax: [900, null], types: { IdxSpecNow: 'u16', ...layer(1, 'u8') } },
          { minmax: [null, 900], types: { IdxSpecUpTo: 'u32' } },
          { minmax: [901, undefined], types: { IdxSpecLater: 'u64' } },
        ],
        alias: { assets: { Balance: 'u64' } },
        signedExtensions: { ChargeAssetTxPayment: { extrinsic: { tip: 'Compact<Balance>', idxAssetId: 'TAssetConversion' }, payload: {} } },
        rpc: {
          // a method the node serves that @polkadot/api does not know (as a custom chain's would be)
          idx: { header: { description: 'the header', params: [{ name: 'hash', type: 'BlockHash', isHistoric: true, isOptional: true }], type: 'Header', endpoint: 'archive_v1_header' } },
        },
        hasher: (data) => new Uint8Array(createHash('sha256').update(data).digest()),
      },
    },
    chain: {
      ${JSON.stringify(chainName)}: {
        types: [
          { minmax: [0, 100], types: { IdxChainOld: 'u8' } },
          { minmax: [100, null], types: { IdxChainNow: 'i32', ...layer(2, 'u16') } },
        ],
        alias: { balances: { Status: 'u16', Other: 'u32' } },
      },
    },
  },
};`;

interface Config {
  name: string;
  file: string;
  text: string;
  /** the options @subql/node gives ApiPromise.create: the chain types, a hasher named by string made the function it names */
  options(file: string): RegisteredTypes;
}
const CONFIGS: Config[] = [
  { name: 'no chain types', file: '', text: '', options: () => ({}) },
  {
    name: 'types and typesAlias (JSON)',
    file: 'chaintypes.json',
    text: JSON.stringify({ types: { IdxTypes: 'u64', IdxStruct: { a: 'u8', b: 'AccountId' }, Balance: 'u64' }, typesAlias: { assets: { Balance: 'u32' } } }),
    options: (file) => JSON.parse(readFileSync(file, 'utf8')) as RegisteredTypes,
  },
  {
    name: 'every field, with a hasher function (JavaScript)',
    file: 'dist/chaintypes.js',
    text: ALL,
    options: (file) => createRequire(file)(file).default as RegisteredTypes,
  },
  {
    name: "a bundle's hasher named as SubQuery names it (YAML)",
    file: 'chaintypes.yaml',
    text: 'typesBundle:\n  spec:\n    statemine:\n      hasher: keccakAsU8a\n      types:\n        - minmax: [0, null]\n          types: { IdxSpecNow: u8 }\n',
    options: () => ({ typesBundle: { spec: { statemine: { hasher: keccakAsU8a, types: [{ minmax: [0, null], types: { IdxSpecNow: 'u8' } }] } } } }),
  },
];

const prelude = createPreludeCache();
const client = createRpcClient({ endpoints: [{ url: chain.httpUrl }] });
const sources = [
  compileSubstrateSource({ startBlock: 1, mapping: { file: './dist/index.js', handlers: [{ kind: 'substrate/BlockHandler', handler: 'onBlock' }] } }, 0),
];

/** What @polkadot/api makes of blocks 1..END with the config's chain types: the probe, the custom RPC call, and what the node matches handlers with. */
async function byApi(options: RegisteredTypes, customRpc: boolean) {
  const api = new ApiPromise({ provider: new HttpProvider(chain.httpUrl), noInitWarn: true, ...options });
  try {
    await api.isReadyOrError;
    const out = new Map<number, { probe: Record<string, unknown>; custom: unknown; matched: unknown }>();
    for (let h = 1; h <= END; h++) {
      const hash = (await api.rpc.chain.getBlockHash(h)).toHex();
      const [raw, events, at] = await Promise.all([
        client.request('chain_getBlock', [hash]),
        client.request<string>('state_getStorage', [SYSTEM_EVENTS_KEY, hash]),
        api.at(hash),
      ]);
      const { registry } = at;
      const signed = registry.createType('SignedBlock', raw);
      const custom = customRpc
        ? (await (api.rpc as unknown as Record<string, Record<string, (h: string) => Promise<{ toJSON(): unknown }>>>).idx!.header!(hash)).toJSON()
        : null;
      const records = registry.createType('Vec<EventRecord>', events);
      out.set(h, {
        probe: probe(registry, signed, events),
        custom,
        matched: {
          extrinsics: signed.block.extrinsics.map((x) => [x.method.section, x.method.method, x.isSigned]),
          events: records.map((e) => [e.event.section, e.event.method]),
        },
      });
    }
    return out;
  } finally {
    await api.disconnect();
  }
}

for (const config of CONFIGS) {
  t.test(`${config.name}: the node's and the sandbox's registries decode and create what @polkadot/api's do`, async (t) => {
    const dir = await projectFolder(t, config.file === '' ? {} : { [config.file]: config.text }, 'idx-chaintypes-');
    const file = join(dir, config.file);
    const chainTypes = config.file === '' ? undefined : await loadChainTypes({ root: dir, manifestPath: join(dir, 'project.yaml') }, config.file, { prelude });
    const customRpc = config.text.includes('rpc:');

    // the node: its registry for the runtime, made when it fetched the blocks
    const source = createSubstrateSource(client, { ...(chainTypes && { chainTypes: chainTypes.registry }) });
    const blocks = await source.getBlocks(1, END);
    const nodeRegistry = await source.registryOf(900);

    // the sandbox, in an isolate and with --unsafe (node:vm): a mapping that probes api.registry, the registry of the block's runtime
    const probedIn = async (unsafe: boolean) => {
      const fake = createFakeHost({
        request: (method, params) => client.request(method, params as unknown[]),
        substrateRuntime: (v: number) => source.runtimeInputs(v),
      });
      const sb = await createSandbox({
        code: MAPPING,
        fileName: join(dir, 'dist', 'index.js'),
        family: 'substrate',
        host: fake.host,
        prelude,
        unsafe,
        ...(chainTypes && { chainTypes: chainTypes.sandbox }),
      });
      try {
        for (const block of blocks) await sb.runSubstrateBlock(block, matchSubstrateHandlers(sources, block, 0));
      } finally {
        sb.dispose();
      }
      return new Map(
        fake.calls.filter((c) => c[0] === 'set').map((c) => [Number(c[2]), JSON.parse((c[3] as { json: string }).json) as Record<string, unknown>]),
      );
    };
    // --unsafe only where the chain types are code (its own require, functions that stay in the context)
    const sandboxes = { isolate: await probedIn(false), ...(config.file.endsWith('.js') && { '--unsafe': await probedIn(true) }) };

    const expected = await byApi(config.file === '' ? {} : config.options(file), customRpc);
    for (const block of blocks) {
      const want = expected.get(block.height)!;
      const hash = block.hash;
      const raw = await client.request('chain_getBlock', [hash]);
      const events = await client.request<string>('state_getStorage', [SYSTEM_EVENTS_KEY, hash]);
      const onNode = probe(nodeRegistry, nodeRegistry.createType('SignedBlock', raw), events);
      // the node's registry never hashes (block hashes come from the chain): a hasher function is the sandbox's alone
      const { hash: _h, header: _hd, extrinsics: nodeExtrinsics, ...nodeRest } = onNode;
      const { hash: _wh, header: _whd, extrinsics: wantExtrinsics, ...wantRest } = want.probe;
      t.same(nodeRest, wantRest, `block ${block.height}: the node's registry`);
      const strip = (xs: unknown) => (xs as Record<string, unknown>[]).map(({ hash: _x, ...rest }) => rest);
      t.same(strip(nodeExtrinsics), strip(wantExtrinsics), `block ${block.height}: the node's registry decodes the extrinsics`);
      t.same(
        { extrinsics: block.extrinsics.map((x) => [x.section, x.method, x.isSigned]), events: block.events.map((e) => [e.section, e.method]) },
        want.matched,
        `block ${block.height}: what the node matches handlers with`,
      );
      for (const [mode, probed] of Object.entries(sandboxes)) {
        const { custom, ...sandboxProbe } = probed.get(block.height)!;
        t.same(sandboxProbe, want.probe, `block ${block.height}: the sandbox's registry (${mode})`);
        if (customRpc) t.same(custom, want.custom, `block ${block.height}: the bundle's JSON-RPC method in the sandbox (${mode})`);
        else t.match(custom, /api\.rpc\.idx\.header is not a JSON-RPC method/, 'no bundle, no such method');
      }
    }

    // not only equal: the chain types took effect (each of these is what the library's own rules give)
    const seen = { ...expected.get(2)!.probe, custom: expected.get(2)!.custom } as {
      types: Record<string, unknown>;
      hash: string;
      extrinsics: { signature: Record<string, unknown> | null }[];
      alias: unknown;
      custom: unknown;
    };
    const raw = (name: string) => (Array.isArray(seen.types[name]) ? (seen.types[name] as unknown[])[0] : seen.types[name]);
    if (config.name.startsWith('no chain types')) {
      // the asset a signed extrinsic pays its fee with (ChargeAssetTxPayment): Option<MultiLocation> without them
      t.equal(raw('TAssetConversion'), 'Option<AssetId>', "statemine's own types, from @polkadot/types-known");
    } else if (config.file.endsWith('.json')) {
      t.equal(raw('IdxTypes'), 'u64');
      t.same((seen.types.Balance as unknown[])[1], new TypeRegistry().createType('u64', hexToU8a(SAMPLE)).toJSON(), 'Balance made a u64');
      t.same(seen.alias, { assets: { Balance: 'u32' } });
    } else if (config.file.endsWith('.js')) {
      t.same(['IdxW1', 'IdxW2', 'IdxW3', 'IdxW4', 'IdxW5'].map(raw), ['u8', 'u16', 'u32', 'u64', 'u128'], 'each layer overrides the one before');
      t.same(['IdxSpecNow', 'IdxSpecUpTo', 'IdxChainNow', 'AssetId'].map(raw), ['u16', 'u32', 'i32', 'u64'], 'the versions that include 900 apply');
      for (const name of ['IdxSpecOld', 'IdxSpecLater', 'IdxChainOld', 'IdxOtherChain', 'IdxOtherSpec'])
        t.match(raw(name), /^error: .*unknown type/, `${name}: not this runtime's`);
      t.equal(seen.hash, `0x${Buffer.from(sha256AsU8a(Buffer.from(SAMPLE.slice(2), 'hex'))).toString('hex')}`, "the bundle's hasher function");
      // by pallet, each layer's pallet replacing the one before (a shallow merge, as getSpecAlias does)
      t.same(seen.alias, { assets: { Balance: 'u64' }, balances: { Status: 'u8' } }, 'aliases: spec, then chain, then typesAlias');
      t.ok(
        seen.extrinsics.some((x) => x.signature !== null && 'idxAssetId' in x.signature),
        "the bundle's signed extension decodes the signed transfer",
      );
      t.match(seen.custom, { number: 2 }, "the bundle's JSON-RPC method");
    } else {
      t.equal(seen.hash, `0x${Buffer.from(keccakAsU8a(Buffer.from(SAMPLE.slice(2), 'hex'))).toString('hex')}`, 'the hasher @polkadot/util-crypto names so');
      t.equal(raw('IdxSpecNow'), 'u8');
    }
  });
}

// A project as a SubQuery user writes one: its chain types a TypeScript file exported through package.json
// "exports", which idx build bundles (with the @polkadot/util-crypto it imports) into dist/chaintypes.js, the file
// the manifest names. Its typesBundle makes statemine hash with keccak and defines a type for spec versions from
// 900 on: the mappings see both.
const PROJECT: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'chaintypes-project', version: '0.0.1', private: true, exports: { chaintypes: 'src/chaintypes.ts' } }),
  'project.yaml': `specVersion: 1.0.0
name: chaintypes-project
runner: { node: { name: "@subql/node", version: ">=3.0.0" }, query: { name: "@subql/query", version: "*" } }
schema: { file: ./schema.graphql }
network:
  chainId: "0x${'45'.repeat(32)}"
  endpoint: [ws://127.0.0.1:8000]
  chaintypes: { file: ./dist/chaintypes.js }
dataSources:
  - kind: substrate/Runtime
    startBlock: 1
    mapping:
      file: ./dist/index.js
      handlers:
        - { kind: substrate/BlockHandler, handler: handleBlock }
        - { kind: substrate/CallHandler, handler: handleCall }
        - { kind: substrate/EventHandler, handler: handleTransfer, filter: { module: balances, method: Transfer } }
`,
  'schema.graphql': `type Seen @entity {
  id: ID!
  headerHash: String!
  probeType: String!
  probe: String!
}
type Call @entity {
  "block height and the extrinsic's index"
  id: ID!
  hash: String!
}
type Transfer @entity {
  id: ID!
  extrinsicHash: String
}
`,
  'src/chaintypes.ts': `import type { OverrideBundleDefinition } from "@polkadot/types/types";
import { keccakAsU8a } from "@polkadot/util-crypto";

const statemine: OverrideBundleDefinition = {
  hasher: keccakAsU8a,
  types: [
    { minmax: [0, 899], types: { IdxProbe: "u8" } },
    { minmax: [900, undefined], types: { IdxProbe: { who: "AccountId", amount: "Compact<Balance>" } } },
  ],
};

export default { typesBundle: { spec: { statemine } } };
`,
  'src/index.ts': `import type { SubstrateBlock, SubstrateEvent, SubstrateExtrinsic } from "@subql/types";
import { Call, Seen, Transfer } from "./types";

export async function handleBlock(block: SubstrateBlock): Promise<void> {
  const probe = api.registry.createType("IdxProbe" as never, { who: "${w.accounts.alice}", amount: 5 });
  await Seen.create({
    id: block.block.header.number.toString(),
    headerHash: block.block.header.hash.toHex(),
    probeType: probe.toRawType(),
    probe: JSON.stringify(probe.toJSON()),
  }).save();
}

export async function handleCall(call: SubstrateExtrinsic): Promise<void> {
  await Call.create({ id: call.block.block.header.number.toString() + "-" + call.idx, hash: call.extrinsic.hash.toHex() }).save();
}

export async function handleTransfer(event: SubstrateEvent): Promise<void> {
  await Transfer.create({ id: event.block.block.header.number.toString() + "-" + event.idx, extrinsicHash: event.extrinsic?.extrinsic.hash.toHex() }).save();
}
`,
};

t.test('a project whose chain types are a TypeScript file built by idx build indexes with them: its mappings see their typesBundle', async (t) => {
  const dir = await projectFolder(t, PROJECT, 'idx-chaintypes-project-');
  // the project's own node_modules, as npm install leaves it: this repository's @polkadot packages
  await symlink(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await idxCli(dir, 'codegen');
  await idxCli(dir, 'build');
  const schema = uniqueSchemaName('idx_chaintypes');
  await indexInProcess(PROGRAM_BACKEND, dir, chain.wsUrl, ['--db-schema', schema], END);
  const db = await openIndexedDb(t, PROGRAM_BACKEND, dir, [schema]);

  const seen = await execute<{ id: string; header_hash: string; probe_type: string; probe: string }>(
    db.kysely,
    `select id, header_hash, probe_type, probe from ${quoteIdent(schema)}.seens order by id`,
  );
  const calls = await execute<{ id: string; hash: string }>(db.kysely, `select id, hash from ${quoteIdent(schema)}.calls`);
  const callHash = new Map(calls.map((c) => [c.id, c.hash]));
  t.same(
    seen.map((s) => s.id),
    ['1', '2', '3'],
  );
  const keccak = (bytes: Uint8Array) => u8aToHex(keccakAsU8a(bytes));
  for (const row of seen) {
    const hash = await w.api.rpc.chain.getBlockHash(Number(row.id));
    const { block } = await w.api.rpc.chain.getBlock(hash);
    t.equal(row.header_hash, keccak(block.header.toU8a()), `block ${row.id}: the header hashed with the bundle's keccak`);
    t.not(row.header_hash, hash.toHex(), "(not the chain's own blake2 hash)");
    t.same(
      block.extrinsics.map((_, i) => callHash.get(`${row.id}-${i}`)),
      block.extrinsics.map((x) => keccak(x.toU8a())),
      `block ${row.id}: so are the extrinsics`,
    );
    t.equal(row.probe_type, '{"who":"AccountId","amount":"Compact<Balance>"}', "the bundle's type for spec versions from 900");
    t.same(JSON.parse(row.probe), { who: w.api.createType('AccountId', w.accounts.alice).toString(), amount: 5 });
  }
  const transfers = await execute<{ id: string; extrinsic_hash: string | null }>(
    db.kysely,
    `select id, extrinsic_hash from ${quoteIdent(schema)}.transfers order by id`,
  );
  const { block } = await w.api.rpc.chain.getBlock(await w.api.rpc.chain.getBlockHash(2));
  const transfer = block.extrinsics.findIndex((x) => x.method.section === 'balances');
  t.ok(
    transfers.some((r) => r.id.startsWith('2-') && r.extrinsic_hash === keccak(block.extrinsics[transfer]!.toU8a())),
    "the transfer of block 2 names its extrinsic by the bundle's hash",
  );

  // versioned types where types go: SubQuery refuses them, and so does the node, before indexing anything
  await writeFile(join(dir, 'array.json'), JSON.stringify({ types: [{ minmax: [0, null], types: { IdxProbe: 'u8' } }] }));
  await writeFile(join(dir, 'project.yaml'), PROJECT['project.yaml']!.replace('./dist/chaintypes.js', './array.json'));
  const refused = await indexInProcess(PROGRAM_BACKEND, dir, chain.wsUrl, ['--db-schema', `${schema}_array`], END).then(
    () => undefined,
    (err: unknown) => err as Error,
  );
  t.match(refused?.message, /^array\.json \(.*project\.yaml: network\.chaintypes\.file\) is invalid:\n {2}- types: must be an object, not an array/);
});
