import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import type { Db } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { startSubstrateChain, CHOPSTICKS_GENESIS_HASH } from '../devchain/start-substrate-chain.ts';
import { createSubstrateWorkload } from '../devchain/substrate-workload.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, PROGRAM_BACKEND, envFor } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { reindex } from '../apps/node/start-up/history-commands.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { runWithKills } from './support/kill-cycles.ts';
import { buildErc20Project } from './support/erc20-starter.ts';
import { copyProject } from './support/project-copies.ts';
import { idxCli } from './support/idx-programs.ts';
import { anvilForTest } from './support/anvil.ts';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { chainMetadataTable } from '../domain/entities/chain-tables.ts';
import { buildSubstrateStarter } from './support/substrate-project.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { indexInProcess, indexedDbReads, openIndexedDb } from './support/index-in-process.ts';
import { gqlData, startQueryService } from './support/query-client.ts';
import { startFinalityLagProxy } from './support/finality-lag-proxy.ts';
import { startRpcProxy } from './support/local-rpc-server.ts';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { createSubstrateSource } from '../infra/chains/substrate/create-substrate-source.ts';
import { compileSubstrateSource, matchSubstrateHandlers } from '../domain/chains/substrate/match-substrate-handlers.ts';
import { createSandbox } from '../infra/sandbox/create-sandbox.ts';
import { createFakeHost } from '../infra/sandbox/fixtures/fake-host.ts';

exitWhenDone();

// 191 s on a slower 2-core machine (2026-11-30), near tap's 300 s
t.setTimeout(600_000);
const quietLogger = createLogger({ level: 'warn', format: 'colored', colors: false, write: () => {} });

const chain = await startSubstrateChain();
t.teardown(() => chain.close());
const w = await createSubstrateWorkload(chain);
t.teardown(() => w.close());
const { alice, bob, charlie } = w.accounts;
// block 2: a transfer; 3: a batch of two; 4: a transfer that fails (more than Bob has) and a batch that fails; then empty blocks to 12
await w.transfer('alice', bob, 10n ** 12n);
await w.block();
await w.batchAll('alice', [
  [charlie, 5n * 10n ** 10n],
  [bob, 7n * 10n ** 10n],
]);
await w.block();
await w.transfer('bob', charlie, 10n ** 30n);
await w.batchAll('alice', [
  [charlie, 10n ** 10n],
  [bob, 10n ** 30n],
]);
await w.block();
while ((await chain.height()) < 12) await w.block();
const END = 12;

// What the chain itself says, decoded by @polkadot/api: every balances.Transfer event of blocks from..to.
async function transfersOnChain(from: number, to: number) {
  const out: Transfer[] = [];
  for (let h = from; h <= to; h++) {
    const hash = await w.api.rpc.chain.getBlockHash(h);
    const events = await (await w.api.at(hash)).query.system.events();
    events.forEach((record, idx) => {
      const { section, method, data } = record.event;
      if (section === 'balances' && method === 'Transfer')
        out.push({ id: `${h}-${idx}`, from: data[0]!.toString(), to: data[1]!.toString(), amount: data[2]!.toString() });
    });
  }
  return out;
}
type Transfer = { id: string; from: string; to: string; amount: string };
const byId = (a: { id: unknown }, b: { id: unknown }) => String(a.id).localeCompare(String(b.id));

/** The transfer rows a schema holds, by id; only those of blocks above `above`, and of one chain of a --multi-chain schema, when given. */
async function indexedTransfers(db: Db, schema: string, above = 0, chain?: string): Promise<Transfer[]> {
  const rows = await execute<Transfer>(
    db.kysely,
    `select id, from_id as "from", to_id as "to", amount::text as amount from ${quoteIdent(schema)}.transfers where split_part(id, '-', 1)::int > $1${chainFilter(chain, 2)}`,
    chain === undefined ? [above] : [above, chain],
  );
  return [...rows].sort(byId);
}

/** `and __chain = $n` for one chain of a --multi-chain schema (other schemas have no such column) */
const chainFilter = (chain: string | undefined, n: number) => (chain === undefined ? '' : ` and __chain = $${n}`);

/** [account, sent, received] of every account, as the transfers add up, by account */
function runningTotals(transfers: readonly Transfer[]): string[][] {
  const sums = new Map<string, { sent: bigint; received: bigint }>();
  for (const e of transfers) {
    const from = sums.get(e.from) ?? { sent: 0n, received: 0n };
    from.sent += BigInt(e.amount);
    sums.set(e.from, from);
    const to = sums.get(e.to) ?? { sent: 0n, received: 0n };
    to.received += BigInt(e.amount);
    sums.set(e.to, to);
  }
  return [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, v]) => [id, String(v.sent), String(v.received)]);
}

/** [account, sent, received] of every account's current version in a schema (of one chain, when given), by account */
async function indexedTotals(db: Db, schema: string, chain?: string): Promise<string[][]> {
  const rows = await execute<{ id: string; sent: string; received: string }>(
    db.kysely,
    `select id, sent::text, received::text from ${quoteIdent(schema)}.accounts where upper_inf(__block_range)${chainFilter(chain, 1)} order by id`,
    chain === undefined ? [] : [chain],
  );
  return rows.map((a) => [a.id, a.sent, a.received]);
}

/** Moves the chain's head back to `height` (chopsticks' dev_setHead); blocks built next make a new branch. */
async function setHead(height: number): Promise<void> {
  await fetch(chain.httpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'dev_setHead', params: [height] }),
  });
}

const expected = await transfersOnChain(1, END);
const aliceAt10 = (await (await w.api.at(await w.api.rpc.chain.getBlockHash(10))).query.system.account(alice)).data.free.toString();

// The starter, as a user builds it.
const built = await buildSubstrateStarter(t);

for (const kind of BACKENDS) {
  t.test(`${kind}: the Substrate starter indexes transfers, batch calls and sampled blocks as the chain has them`, async (t) => {
    const dir = await copyProject(t, built);
    const schema = uniqueSchemaName('idx_substrate');
    // a ws:// endpoint, as Substrate manifests name them
    await indexInProcess(kind, dir, chain.wsUrl, ['--db-schema', schema], END);
    const db = await openIndexedDb(t, kind, dir, [schema]);
    const s = quoteIdent(schema);
    t.same(await indexedTransfers(db, schema), [...expected].sort(byId), 'one row per balances.Transfer event of the chain, fee transfers included');
    t.ok(
      expected.some((e) => e.amount === String(10n ** 12n) && e.id.startsWith('2-')),
      'the plain transfer of block 2 is among them',
    );
    t.notOk(
      expected.some((e) => e.amount === String(10n ** 30n)),
      'the failed transfers made no event',
    );

    const batches = await execute(db.kysely, `select block_number, signer, success, calls from ${s}.batches order by block_number`);
    t.same(batches, [
      { block_number: 3, signer: String(w.api.createType('AccountId', alice).toString()), success: true, calls: 2 },
      { block_number: 4, signer: String(w.api.createType('AccountId', alice).toString()), success: false, calls: 2 },
    ]);

    const samples = await execute(db.kysely, `select spec_version, events, alice_free::text as alice_free from ${s}.block_samples`);
    t.equal(samples.length, 1, 'modulo 10: block 10 only');
    t.equal(samples[0]!.alice_free, aliceAt10, 'api.query.system.account read at block 10');
    t.equal(samples[0]!.spec_version, 900);

    const meta = await execute(db.kysely, `select key, value from ${s}._metadata where key in ('genesisHash', 'specName', 'lastProcessedHeight')`);
    const m = Object.fromEntries(meta.map((r) => [r.key, r.value]));
    t.equal(m.genesisHash, CHOPSTICKS_GENESIS_HASH);
    t.equal(m.specName, 'statemine');
    t.equal(m.lastProcessedHeight, END);

    // idx-query serves the Substrate project's entities as any other: relations, ordering, history, _metadata.
    const { url } = await startQueryService(t, db, schema);
    const data = await gqlData(
      url,
      `{ transfers(orderBy: [BLOCK_NUMBER_ASC, ID_ASC], filter: { amount: { equalTo: "${10n ** 12n}" } }) { totalCount nodes { id blockNumber from { id } to { id received } } }
         accounts(blockHeight: "2", filter: { received: { greaterThan: "0" } }) { totalCount }
         _metadata { lastProcessedHeight specName genesisHash } }`,
    );
    const plain = expected.find((e) => e.amount === String(10n ** 12n))!;
    t.equal(data.transfers.totalCount, 1);
    t.same(data.transfers.nodes[0].from, { id: plain.from });
    t.equal(data.transfers.nodes[0].to.id, plain.to);
    t.equal(data.transfers.nodes[0].blockNumber, 2);
    t.same(data._metadata, { lastProcessedHeight: END, specName: 'statemine', genesisHash: CHOPSTICKS_GENESIS_HASH });
    const upTo2 = new Set(expected.filter((e) => Number(e.id.split('-')[0]) <= 2 && BigInt(e.amount) > 0n).map((e) => e.to));
    t.equal(data.accounts.totalCount, upTo2.size, 'accounts as of block 2: those that had received by then');
  });
}

// Every event, call and block of the chain through a mapping that prints what it sees: the objects, decoded in
// the sandbox only as far as they are read, equal what @polkadot/api decodes (as @subql/node hands them over),
// and whatever is read is one object however it is reached.
const PRINTER = `
const put = (id, value) => store.set('Seen', id, { id, json: JSON.stringify(value) });
module.exports.onEvent = async (e) => {
  const x = e.extrinsic;
  await put(e.block.block.header.number.toNumber() + '-e' + e.idx, {
    idx: e.idx, record: e.toJSON(), human: e.toHuman(), names: e.event.data.names, section: e.event.section, method: e.event.method, data: e.event.data.map((d) => d.toString()),
    extrinsic: x === undefined ? null : { idx: x.idx, success: x.success, hash: x.extrinsic.hash.toHex(), events: x.events.map((o) => o.idx) },
    same: e.block.events[e.idx] === e && (x === undefined || (x.extrinsic === e.block.block.extrinsics[x.idx] && x.events.includes(e))),
  });
};
module.exports.onCall = async (x) => {
  await put(x.block.block.header.number.toNumber() + '-x' + x.idx, {
    idx: x.idx, success: x.success, hash: x.extrinsic.hash.toHex(), call: x.extrinsic.method.toJSON(), signer: x.extrinsic.isSigned ? x.extrinsic.signer.toString() : null,
    events: x.events.map((e) => [e.idx, e.event.section, e.event.method]), same: x.events.every((e) => e.extrinsic === x),
  });
};
module.exports.onBlock = async (b) => {
  await put(b.block.header.number.toNumber() + '-b', {
    hash: b.block.header.hash.toHex(), json: b.toJSON(), events: b.events.map((e) => e.toJSON()), hashes: b.block.extrinsics.map((x) => x.hash.toHex()),
    specVersion: b.specVersion, timestamp: b.timestamp.getTime(),
  });
};`;

/** What the printer should print of blocks from..to, from @polkadot/api's own decoding of them. */
async function printedByApi(from: number, to: number): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (let h = from; h <= to; h++) {
    const hash = await w.api.rpc.chain.getBlockHash(h);
    const [signed, at, version] = await Promise.all([w.api.rpc.chain.getBlock(hash), w.api.at(hash), w.api.rpc.state.getRuntimeVersion(hash)]);
    const events = await at.query.system.events();
    const extrinsics = signed.block.extrinsics;
    const of = (x: number) => events.flatMap((e, i) => (e.phase.isApplyExtrinsic && e.phase.asApplyExtrinsic.toNumber() === x ? [i] : []));
    const success = (x: number) => of(x).some((i) => events[i]!.event.section === 'system' && events[i]!.event.method === 'ExtrinsicSuccess');
    events.forEach((e, i) => {
      const x = e.phase.isApplyExtrinsic ? e.phase.asApplyExtrinsic.toNumber() : undefined;
      out.set(`${h}-e${i}`, {
        idx: i,
        record: e.toJSON(),
        human: e.toHuman(),
        names: e.event.data.names,
        section: e.event.section,
        method: e.event.method,
        data: e.event.data.map((d) => d.toString()),
        extrinsic: x === undefined ? null : { idx: x, success: success(x), hash: extrinsics[x]!.hash.toHex(), events: of(x) },
        same: true,
      });
    });
    extrinsics.forEach((x, i) => {
      out.set(`${h}-x${i}`, {
        idx: i,
        success: success(i),
        hash: x.hash.toHex(),
        call: x.method.toJSON(),
        signer: x.isSigned ? x.signer.toString() : null,
        events: of(i).map((e) => [e, events[e]!.event.section, events[e]!.event.method]),
        same: true,
      });
    });
    // what the node matches handlers against (the host's summary of the block)
    out.set(`${h}-matched`, {
      extrinsics: extrinsics.map((x, i) => ({ section: x.method.section, method: x.method.method, isSigned: x.isSigned, success: success(i) })),
      events: events.map((e) => ({
        section: e.event.section,
        method: e.event.method,
        extrinsic: e.phase.isApplyExtrinsic ? e.phase.asApplyExtrinsic.toNumber() : e.phase.isInitialization ? 'initialization' : 'finalization',
      })),
    });
    const set = extrinsics.find((x) => x.method.section === 'timestamp' && x.method.method === 'set')!;
    out.set(`${h}-b`, {
      hash: signed.block.header.hash.toHex(),
      json: signed.toJSON(),
      events: events.toJSON(),
      hashes: extrinsics.map((x) => x.hash.toHex()),
      specVersion: version.specVersion.toNumber(),
      timestamp: Number(set.method.args[0]!.toString()),
    });
  }
  return out;
}

/**
 * A Substrate sandbox running `code` over the chain at `url` with a recording fake host: the block
 * source the test fetches with, and the spec versions whose runtime the sandbox asked for.
 */
async function sandboxOverChain(t: { teardown(fn: () => unknown): void }, url: string, code: string, fileName: string) {
  const client = createRpcClient({ endpoints: [{ url }] });
  const source = createSubstrateSource(client);
  const runtimesAsked: number[] = [];
  const fake = createFakeHost({
    request: (method, params) => client.request(method, params as unknown[]),
    substrateRuntime: async (v: number) => {
      runtimesAsked.push(v);
      return source.runtimeInputs(v);
    },
  });
  const sb = await createSandbox({ code, fileName, family: 'substrate', host: fake.host });
  t.teardown(() => sb.dispose());
  return { source, fake, sb, runtimesAsked };
}

t.test("the mapping objects, decoded as they are read, equal @polkadot/api's decoding of every event, extrinsic and block", async (t) => {
  const { source, fake, sb, runtimesAsked } = await sandboxOverChain(t, chain.httpUrl, PRINTER, '/printer/dist/index.js');
  const sources = [
    compileSubstrateSource(
      {
        startBlock: 1,
        mapping: {
          file: './dist/index.js',
          handlers: [
            { kind: 'substrate/BlockHandler', handler: 'onBlock' },
            { kind: 'substrate/CallHandler', handler: 'onCall' },
            { kind: 'substrate/EventHandler', handler: 'onEvent' },
          ],
        },
      },
      0,
    ),
  ];
  let previous = 0;
  const blocks = await source.getBlocks(1, END);
  // made ahead, as the node does while it fetches; the first block (running meanwhile) waits for the same one
  const prepared = sb.prepareSubstrateRuntime(blocks[0]!.specVersion);
  for (const block of blocks) {
    await sb.runSubstrateBlock(block, matchSubstrateHandlers(sources, block, previous));
    previous = block.timestamp;
  }
  await prepared;
  t.same(runtimesAsked, [blocks[0]!.specVersion], 'the runtime made ahead is the one the blocks decode with: its metadata was asked for once');
  const printed = new Map(fake.calls.filter((c) => c[0] === 'set').map((c) => [c[2] as string, JSON.parse((c[3] as { json: string }).json) as unknown]));
  for (const b of blocks) printed.set(`${b.height}-matched`, { extrinsics: b.extrinsics, events: b.events });
  const expected = await printedByApi(1, END);
  t.same([...printed.keys()].sort(), [...expected.keys()].sort(), 'every event, extrinsic and block reached its handler once, and was matched by what it is');
  for (const [id, value] of expected) t.same(printed.get(id), value, id);
});

const RPC_READER = `
const failure = (p) => p.then(() => 'no error', (e) => e.message);
module.exports.onBlock = async (block) => {
  const n = block.block.header.number.toNumber();
  const header = await api.rpc.chain.getHeader();
  const parent = await api.rpc.chain.getBlock(block.block.header.parentHash);
  const version = await api.rpc.state.getRuntimeVersion();
  const storage = await api.rpc.state.getStorage('${'0x26aa394eea5630e07c48ae0c9558cef702a5c1b19ab7a04f536c519aca4983ac'}');
  await store.set('Read', String(n), {
    id: String(n),
    json: JSON.stringify({
      header: [header.hash.toHex(), header.number.toNumber()],
      parent: parent.block.header.number.toNumber(),
      spec: version.specVersion.toNumber(),
      blockNumber: storage.toHex(),
      notAtBlock: await failure(api.rpc.system.chain()),
      ahead: await failure(api.rpc.chain.getHeader(globalThis.later)),
      unknown: await failure(api.rpc.chain.getNothing()),
      missing: await failure(api.rpc.state.getStorage()),
      successes: block.events.filter((e) => api.events.system.ExtrinsicSuccess.is(e.event)).length,
      successesByName: block.events.filter((e) => e.event.section === 'system' && e.event.method === 'ExtrinsicSuccess').length,
      calls: block.block.extrinsics.map((x) => api.findCall(x.method.callIndex).method),
      callsByName: block.block.extrinsics.map((x) => x.method.method),
      error: api.errors.balances.InsufficientBalance.meta.name.toString(),
      u32: api.registry.createType('u32', n).toNumber(),
      findsBalance: api.registry.createType('Balance', 10n ** 20n).toBigInt().toString(),
    }),
  });
  globalThis.later = block.block.header.hash.toHex();
};
`;

t.test(
  "api.rpc reads at the block being indexed (SubQuery's rule: calls without a block parameter, and later blocks, are refused); api.events, api.errors, api.registry, api.findCall",
  async (t) => {
    const { source, fake, sb } = await sandboxOverChain(t, chain.httpUrl, RPC_READER, '/rpc/dist/index.js');
    const sources = [
      compileSubstrateSource({ startBlock: 1, mapping: { file: './dist/index.js', handlers: [{ kind: 'substrate/BlockHandler', handler: 'onBlock' }] } }, 0),
    ];
    // the blocks in reverse: each block's handler asks for the block run before it, which is later
    const blocks = (await source.getBlocks(2, 4)).reverse();
    for (const block of blocks) await sb.runSubstrateBlock(block, matchSubstrateHandlers(sources, block, 0));
    const read = new Map(
      fake.calls.filter((c) => c[0] === 'set').map((c) => [Number(c[2]), JSON.parse((c[3] as { json: string }).json) as Record<string, unknown>]),
    );
    for (const block of blocks) {
      const got = read.get(block.height)!;
      t.same(got.header, [block.hash, block.height], `block ${block.height}: chain.getHeader() is the block's own header`);
      t.equal(got.parent, block.height - 1, 'chain.getBlock(parentHash) is its parent');
      t.equal(got.spec, block.specVersion, "state.getRuntimeVersion() is the block's runtime");
      // System.Number is the block's own number (u32, little-endian)
      t.equal(got.blockNumber, `0x${Buffer.from(new Uint32Array([block.height]).buffer).toString('hex')}`, 'state.getStorage(key) reads at the block');
      t.match(got.notAtBlock, /api\.rpc\.system\.chain is not supported in mappings/, 'a call with no block parameter is refused');
      t.match(got.unknown, /api\.rpc\.chain\.getNothing is not a JSON-RPC method/, 'an unknown call is named');
      t.match(got.missing, /api\.rpc\.state\.getStorage: its parameter key \(StorageKey\) is missing/, 'a missing parameter is named');
      t.ok((got.successes as number) > 0, 'the block has successful extrinsics');
      t.equal(got.successes, got.successesByName, "api.events.<pallet>.<event>.is() tells the runtime's events");
      t.same(got.calls, got.callsByName, 'api.findCall(callIndex) finds the calls');
      t.equal(got.error, 'InsufficientBalance', "api.errors holds the runtime's errors");
      t.same([got.u32, got.findsBalance], [block.height, String(10n ** 20n)], "api.registry is the block's runtime registry");
    }
    t.equal(read.get(4)!.ahead, 'no error', 'the first block asks for its own header');
    t.match(read.get(3)!.ahead, /block 4 is after the block being indexed \(3\)/, 'a later block is refused');
    t.match(read.get(2)!.ahead, /block 3 is after the block being indexed \(2\)/, 'a later block is refused');
  },
);

const SPEC_READER = `
module.exports.onBlock = async (block) => {
  const n = block.block.header.number.toNumber();
  const transfers = block.events.filter((e) => e.event.section === 'balances' && e.event.method === 'Transfer').map((e) => e.event.data.amount.toBigInt().toString());
  await store.set('Seen', String(n), { id: String(n), json: JSON.stringify({ spec: block.specVersion, events: block.events.length, transfers }) });
};
`;

t.test('a runtime upgrade mid-range: each block is decoded with the runtime it ran, on the host and in the sandbox', async (t) => {
  // Chopsticks runs the one runtime the registry has; a proxy reports a new spec version in the state of block
  // UPGRADE - 1 on (the metadata stays the same), as when that block sets the new code: the blocks from UPGRADE on
  // run it, the block setting it still runs the old one, so the node sees an upgrade in the middle of a range.
  const UPGRADE = 3; // block 2 holds a transfer, block 3 a batch of two: transfers on both sides
  const upstream = createRpcClient({ endpoints: [{ url: chain.httpUrl }] });
  const heightOf = async (hash: string) => Number((await upstream.request<{ number: string }>('chain_getHeader', [hash])).number);
  const proxy = await startRpcProxy(t, chain.httpUrl, undefined, async (call, result) => {
    if (call.method !== 'state_getRuntimeVersion') return result;
    const hash = (call.params as string[] | undefined)?.[0];
    const height = hash === undefined ? await chain.height() : await heightOf(hash);
    const version = result as { specVersion: number };
    return height >= UPGRADE - 1 ? { ...version, specVersion: version.specVersion + 1 } : result;
  });
  const { source, fake, sb, runtimesAsked } = await sandboxOverChain(t, proxy.url, SPEC_READER, '/spec/dist/index.js');
  const sources = [
    compileSubstrateSource({ startBlock: 1, mapping: { file: './dist/index.js', handlers: [{ kind: 'substrate/BlockHandler', handler: 'onBlock' }] } }, 0),
  ];
  const blocks = await source.getBlocks(1, END);
  const before = blocks[0]!.specVersion;
  t.same(
    blocks.map((b) => b.specVersion),
    blocks.map((b) => (b.height >= UPGRADE ? before + 1 : before)),
    'the range is fetched with the spec version of each block',
  );
  for (const block of blocks) await sb.runSubstrateBlock(block, matchSubstrateHandlers(sources, block, 0));
  t.same(runtimesAsked, [before, before + 1], "the sandbox made each runtime once, from the host's metadata of it");
  const seen = new Map(
    fake.calls.filter((c) => c[0] === 'set').map((c) => [Number(c[2]), JSON.parse((c[3] as { json: string }).json) as Record<string, unknown>]),
  );
  const expected = await printedByApi(1, END);
  for (const block of blocks) {
    const got = seen.get(block.height)!;
    t.equal(got.spec, block.specVersion, `block ${block.height}: block.specVersion is the runtime it ran`);
    t.equal(got.events, (expected.get(`${block.height}-b`) as { events: unknown[] }).events.length, 'its events decode');
  }
  for (const spec of [before, before + 1]) {
    t.ok(
      [...seen.values()].some((v) => (v.transfers as string[]).length > 0 && v.spec === spec),
      `spec version ${spec}: transfers are read through their named fields`,
    );
  }
});

// The ERC20 starter rewritten to the Substrate starter's entities, so that both chains' projects share one schema.
const EVM_MAPPING = `import { Account, Transfer } from "../types";
import type { TransferLog } from "../types/abi-interfaces/Erc20Abi";

export async function handleTransfer(log: TransferLog): Promise<void> {
  const { from, to, value } = log.args;
  const amount = value.toBigInt();
  await Transfer.create({
    id: \`\${chainId}-\${log.transactionHash}-\${log.logIndex}\`,
    blockNumber: log.blockNumber,
    date: new Date(Number(log.block.timestamp) * 1000),
    fromId: from,
    toId: to,
    amount,
    extrinsicHash: log.transactionHash,
  }).save();
  const sender = (await Account.get(from)) ?? Account.create({ id: from, sent: 0n, received: 0n });
  sender.sent += amount;
  await sender.save();
  const recipient = (await Account.get(to)) ?? Account.create({ id: to, sent: 0n, received: 0n });
  recipient.received += amount;
  await recipient.save();
}
`;

t.test(
  '--multi-chain: the Substrate starter and an EVM project index side by side into one schema, each chain its own rows and metadata',
  { skip: process.env.DB_HOST ? false : '--multi-chain needs PostgreSQL (DB_HOST)' },
  async (t) => {
    const schema = uniqueSchemaName('idx_multi_substrate');
    const substrateDir = await copyProject(t, built);
    const anvil = await anvilForTest(t);
    const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
    const workload = await makeErc20Workload(client, { blocks: 6, transfersPerBlock: 3, approvalsPerBlock: 0, senders: 3, recipients: 5, seed: 3 });
    await client.request('anvil_mine', ['0x40']); // past the confirmations the node waits for
    const evmDir = await buildErc20Project(t);
    await cp(join(substrateDir, 'schema.graphql'), join(evmDir, 'schema.graphql'));
    await writeFile(join(evmDir, 'src', 'mappings', 'erc20.ts'), EVM_MAPPING);
    await writeFile(join(evmDir, 'src', 'mappings', 'blocks.ts'), 'export async function handleBlock(): Promise<void> {}\n');
    await idxCli(evmDir, 'codegen');
    await idxCli(evmDir, 'build');

    const args = ['--db-schema', schema, '--multi-chain'];
    await Promise.all([
      indexInProcess('postgres', substrateDir, chain.wsUrl, args, END),
      indexInProcess('postgres', evmDir, anvil.url, args, workload.toBlock),
    ]);
    const db = await openIndexedDb(t, 'postgres', substrateDir, [schema]);
    const s = quoteIdent(schema);
    const ofChain = async (chainId: string) => ({
      transfers: await indexedTransfers(db, schema, 0, chainId),
      totals: await indexedTotals(db, schema, chainId),
      meta: Object.fromEntries(
        (await execute<{ key: string; value: unknown }>(db.kysely, `select key, value from ${s}.${quoteIdent(chainMetadataTable(chainId))}`)).map((r) => [
          r.key,
          r.value,
        ]),
      ),
    });
    const substrate = await ofChain(CHOPSTICKS_GENESIS_HASH);
    t.same(substrate.transfers, [...expected].sort(byId), "the Substrate chain's rows: every balances.Transfer, as alone");
    t.same(substrate.totals, runningTotals(expected), 'and its accounts add up as alone');
    t.match(substrate.meta, { chain: CHOPSTICKS_GENESIS_HASH, genesisHash: CHOPSTICKS_GENESIS_HASH, specName: 'statemine', lastProcessedHeight: END });

    const evm = await ofChain('31337');
    t.equal(evm.transfers.length, workload.transfers + workload.senders.length, "the EVM chain's rows: every transfer and mint");
    t.ok(
      evm.transfers.every((r) => r.id.startsWith('31337-') && r.from.startsWith('0x')),
      'each of them from the EVM mapping',
    );
    t.same(evm.totals, runningTotals(evm.transfers), 'its accounts add up');
    t.match(evm.meta, { chain: '31337', lastProcessedHeight: workload.toBlock });

    // idx-query serves both chains' rows from the one schema, and each chain's metadata
    const { url } = await startQueryService(t, db, schema);
    const data = await gqlData(
      url,
      `{ transfers { totalCount } substrate: _metadata(chainId: "${CHOPSTICKS_GENESIS_HASH}") { lastProcessedHeight specName } evm: _metadata(chainId: "31337") { lastProcessedHeight } _metadatas { totalCount nodes { chain } } }`,
    );
    t.equal(data.transfers.totalCount, expected.length + evm.transfers.length);
    t.same(data.substrate, { lastProcessedHeight: END, specName: 'statemine' });
    t.same(data.evm, { lastProcessedHeight: workload.toBlock });
    t.same(data._metadatas.nodes.map((n: { chain: string }) => n.chain).sort(), ['31337', CHOPSTICKS_GENESIS_HASH].sort(), '_metadatas lists both chains');
  },
);

t.test(`${PROGRAM_BACKEND}: --proof-of-index links the Substrate block hashes; --csv-out-dir writes the rows the database has`, async (t) => {
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_substrate');
  const out = join(dir, 'csv');
  await indexInProcess(PROGRAM_BACKEND, dir, chain.wsUrl, ['--db-schema', schema, '--proof-of-index', '--csv-out-dir', out], END);
  const db = await openIndexedDb(t, PROGRAM_BACKEND, dir, [schema]);
  const s = quoteIdent(schema);
  const poi = await execute<{ id: number; c: string; h: string; p: string | null }>(
    db.kysely,
    `select id::int as id, encode(chain_block_hash, 'hex') c, encode(hash, 'hex') h, encode(parent_hash, 'hex') p from ${s}._poi order by id`,
  );
  t.equal(poi.at(-1)?.id, END, 'a proof of indexing up to the last block');
  const hashes = await Promise.all(poi.map(async (r) => (await w.api.rpc.chain.getBlockHash(r.id)).toHex().slice(2)));
  t.same(
    poi.map((r) => r.c),
    hashes,
    "each proof names the chain's own block hash at its height",
  );
  t.ok(
    poi.every((r, i) => i === 0 || r.p === poi[i - 1]!.h),
    'each proof points at the one before it',
  );

  const csvIds = (await readFile(join(out, 'Transfer.csv'), 'utf8'))
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.slice(0, line.indexOf(',')));
  const rows = await execute<{ id: string }>(db.kysely, `select id from ${s}.transfers order by id`);
  t.same([...csvIds].sort(), rows.map((r) => r.id).sort(), 'Transfer.csv holds one line per transfer row');
  t.equal(rows.length, expected.length);
});

t.test('a filter naming what the runtime lacks: a warning naming the field, and the node indexes the rest as SubQuery does', async (t) => {
  const kind = BACKENDS[BACKENDS.length - 1]!;
  const dir = await copyProject(t, built);
  const manifest = join(dir, 'project.yaml');
  const original = await readFile(manifest, 'utf8');
  const cases = [
    {
      edit: original.replace('method: Transfer', 'method: Transferred'),
      warning:
        /dataSources\[0\]\.mapping\.handlers\[0\]\.filter\.method: the chain's runtime has no event "Transferred" in balances; it has .*Transfer.*the handler matches no block of that runtime/,
      table: 'transfers',
    },
    {
      edit: original.replace('module: utility', 'module: utilities'),
      warning: /handlers\[1\]\.filter\.module: the chain's runtime has no pallet "utilities" with calls; it has .*utility/,
      table: 'batches',
    },
  ];
  for (const { edit, warning, table } of cases) {
    await writeFile(manifest, edit);
    const schema = uniqueSchemaName('idx_substrate_unknown');
    const lines: string[] = [];
    await indexInProcess(kind, dir, chain.wsUrl, ['--db-schema', schema], END, (line) => void lines.push(line));
    const read = indexedDbReads(t, kind, dir, [schema]);
    const count = (name: string) =>
      read(async (db) => Number((await execute(db.kysely, `select count(*)::int as n from ${quoteIdent(schema)}.${name}`))[0]!.n));
    t.equal(lines.filter((l) => warning.test(l)).length, 1, 'warned once');
    t.equal(await count(table), 0, `the handler matched nothing: no ${table}`);
    t.equal(await count('block_samples'), 1, 'the other handlers ran (block 10 sampled)');
  }
});

t.test('bad input: the wrong genesis hash, an unreachable endpoint; nothing indexed is lost', async (t) => {
  const kind = BACKENDS[BACKENDS.length - 1]!;
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_substrate_bad');
  await indexInProcess(kind, dir, chain.wsUrl, ['--db-schema', schema], 4);
  const read = indexedDbReads(t, kind, dir, [schema]);
  const count = () => read(async (db) => Number((await execute(db.kysely, `select count(*)::int as n from ${quoteIdent(schema)}.transfers`))[0]!.n));
  const before = await count();
  t.ok(before > 0);

  const manifest = join(dir, 'project.yaml');
  const original = await readFile(manifest, 'utf8');
  await writeFile(manifest, original.replace(CHOPSTICKS_GENESIS_HASH, `0x${'12'.repeat(32)}`));
  await t.rejects(indexInProcess(kind, dir, chain.wsUrl, ['--db-schema', schema], END), {
    code: 'CHAIN_ID_MISMATCH',
    message: new RegExp(`network\\.chainId is 0x(12){32}, but .* serves the chain with genesis hash ${CHOPSTICKS_GENESIS_HASH}`),
  });
  await writeFile(manifest, original);
  await t.rejects(indexInProcess(kind, dir, 'ws://127.0.0.1:9', ['--db-schema', schema], END), { code: 'CHAIN_UNREACHABLE', message: /127\.0\.0\.1:9/ });
  t.equal(await count(), before, 'the rows indexed before are all there');
});

t.test('SIGKILLed at random moments and restarted, the node ends with the same rows as one clean run', async (t) => {
  const kind = PROGRAM_BACKEND;
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_substrate_kill');
  const result = await runWithKills({
    dir,
    env: envFor(kind),
    args: ['--network-endpoint', chain.wsUrl, '--db-schema', schema, '--batch-size', '1'],
    target: END,
    seed: 12,
    kills: 3,
    killWindowMs: [300, 3000],
  });
  t.equal(result.kills, 3, `3 kills, at reported heights ${result.killedAt.map((h) => h ?? 'none').join(', ')} of ${END}`);
  const db = await openIndexedDb(t, kind, dir, [schema]);
  t.same(await indexedTransfers(db, schema), [...expected].sort(byId), 'every transfer once');
  t.same(await indexedTotals(db, schema), runningTotals(expected), 'the running totals neither lost nor counted a block twice');
});

// The last two move the chain's head back. Chopsticks calls every block final as soon as it is built (its
// finalized head is its best head), so a dev_setHead rewind replaces blocks the chain had called final: no
// chain can do that, and the node must say so rather than index a mix of two branches. Behind a proxy whose
// finality trails the head, as GRANDPA's does, the same rewind is a reorganisation inside the window.
t.test(
  '--unfinalized-blocks: the head moved back with dev_setHead and rebuilt differently is refused (FORK_BEYOND_UNFINALIZED); reindex below it then indexes the new branch',
  async (t) => {
    const kind = BACKENDS[BACKENDS.length - 1]!;
    const dir = await copyProject(t, built);
    const schema = uniqueSchemaName('idx_substrate_fork');
    const args = ['--db-schema', schema, '--unfinalized-blocks'];
    await indexInProcess(kind, dir, chain.wsUrl, args, END);
    const FORK = 8;
    await setHead(FORK);
    t.equal(await chain.height(), FORK);
    await w.transfer('charlie', alice, 123_456_789n);
    await w.block();
    while ((await chain.height()) < END + 1) await w.block();

    await t.rejects(indexInProcess(kind, dir, chain.wsUrl, args, END + 1), { code: 'FORK_BEYOND_UNFINALIZED', message: /reindex --targetHeight/ });
    const read = indexedDbReads(t, kind, dir, [schema]);
    const lastBefore = await read(
      async (db) => (await execute(db.kysely, `select value from ${quoteIdent(schema)}._metadata where key = 'lastProcessedHeight'`))[0]!.value,
    );
    t.equal(lastBefore, END, 'nothing indexed from the new branch');

    await reindex({ ...nodeOptions(dir, chain.wsUrl, args), idx: dir }, FORK, quietLogger, envFor(kind));
    await indexInProcess(kind, dir, chain.wsUrl, args, END + 1);
    const newBranch = await transfersOnChain(FORK + 1, END + 1);
    t.same(await read((db) => indexedTransfers(db, schema, FORK)), [...newBranch].sort(byId), 'above the fork: exactly the transfers of the new branch');
    t.ok(
      newBranch.some((e) => e.amount === '123456789'),
      "the new branch's own transfer is among them",
    );
  },
);

t.test('--unfinalized-blocks behind a finality that trails the head: a reorganisation inside the window is rolled back to the common ancestor', async (t) => {
  const kind = BACKENDS[BACKENDS.length - 1]!;
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_substrate_reorg');
  const proxy = await startFinalityLagProxy(t, chain.httpUrl, 6);
  const args = ['--db-schema', schema, '--unfinalized-blocks'];
  // the old branch's last block holds a transfer the new branch does not have
  await w.transfer('alice', bob, 111_111n);
  await w.block();
  const top = await chain.height();
  await indexInProcess(kind, dir, proxy.url, args, top);
  const read = indexedDbReads(t, kind, dir, [schema]);
  const amounts = () => read(async (db) => (await indexedTransfers(db, schema)).map((r) => r.amount));
  t.ok((await amounts()).includes('111111'), "the old branch's transfer is indexed");

  const fork = top - 2; // above the finalized head (top - 6), so its blocks are kept as unfinalized
  await setHead(fork);
  await w.transfer('charlie', bob, 222_222n);
  await w.block();
  while ((await chain.height()) < top + 1) await w.block();

  const lines: string[] = [];
  await runNode({
    options: nodeOptions(dir, proxy.url, args),
    logger: createLogger({ level: 'warn', format: 'json', write: (line) => void lines.push(line) }),
    version: 'test',
    env: envFor(kind),
    signal: new AbortController().signal,
    settings: { stopAtHeight: top + 1 },
  });
  const reorg = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.event === 'reorg');
  t.match(reorg, { ancestor: fork, from: top }, `rewound from ${top} to the common ancestor ${fork}`);
  const now = await amounts();
  t.notOk(now.includes('111111'), "the old branch's transfer is gone");
  t.ok(now.includes('222222'), "the new branch's transfer is there");
  const onChain = await transfersOnChain(1, top + 1);
  t.same(await read((db) => indexedTransfers(db, schema)), [...onChain].sort(byId), "every transfer row is the chain's, once");
  t.same(await read((db) => indexedTotals(db, schema)), runningTotals(onChain), "the accounts' running totals count the new branch's blocks only");
});
