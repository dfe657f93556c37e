import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { FrameSystemEventRecord } from '@polkadot/types/lookup';
import { encodeAddress } from '@polkadot/util-crypto';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { startSubstrateChain } from '../devchain/start-substrate-chain.ts';
import { createSubstrateWorkload } from '../devchain/substrate-workload.ts';
import { BACKENDS } from './support/node-backends.ts';
import { copyProject } from './support/project-copies.ts';
import { idxCli, REPO } from './support/idx-programs.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { indexedDbReads, indexInProcess, openIndexedDb } from './support/index-in-process.ts';
import { uniqueSchemaName } from './support/test-backends.ts';

/**
 * Custom data sources (SubQuery's `substrate/FrontierEvm`, `substrate/Wasm`, … kinds): a project with
 * a processor of its own (test/fixtures/substrate-custom-processor, written as SubQuery's processor
 * packages are) indexed on the local chain; every row is what the processor makes of the chain's own
 * events and extrinsics, handled in SubQuery's order.
 */
exitWhenDone();

const chain = await startSubstrateChain();
t.teardown(() => chain.close());
const w = await createSubstrateWorkload(chain);
t.teardown(() => w.close());
const { bob, charlie } = w.accounts;
// as the chain prints it (SS58 prefix 2), and as the fixture's filter and labels name it
const BOB = encodeAddress(bob, 2);
const MINIMUM = 2n * 10n ** 10n;
const SPLIT = 5n * 10n ** 11n;
await w.transfer('alice', bob, 10n ** 12n); // above the split: two values
await w.transfer('alice', charlie, 3n * 10n ** 10n);
await w.transfer('bob', charlie, 10n ** 10n); // below the minimum: filtered out
await w.block();
await w.batchAll('alice', [
  [charlie, 4n * 10n ** 10n],
  [bob, 6n * 10n ** 11n],
]);
await w.batch('charlie', [
  [bob, 5n * 10n ** 10n],
  [bob, 10n ** 30n], // fails: the batch stops there, and succeeds
]);
await w.block();
await w.batchAll('bob', [
  [charlie, 5n * 10n ** 10n],
  [charlie, 10n ** 30n], // fails: so does the whole batchAll
]);
await w.block();
await w.block();
const END = await chain.height();

interface Move {
  id: string;
  handler: string;
  to: string;
  amount: string;
  label: string | null;
  extrinsic_idx: number | null;
  filter_to: string | null;
  half: boolean;
  seq: number;
}

/** What the processor and the mappings make of the chain's blocks, from @polkadot/api's decoding, in SubQuery's order. */
async function expectedRows() {
  const labels = JSON.parse(await readFile(join(REPO, 'test/fixtures/substrate-custom-processor/labels.json'), 'utf8')) as Record<string, string>;
  const moves: Move[] = [];
  const batches: { id: string; calls: number; success: boolean }[] = [];
  for (let h = 1; h <= END; h++) {
    const hash = await w.api.rpc.chain.getBlockHash(h);
    const [block, events] = await Promise.all([w.api.rpc.chain.getBlock(hash), (await w.api.at(hash)).query.system.events()]);
    let seq = 0;
    const onEvent = (record: FrameSystemEventRecord, idx: number) => {
      const { section, method, data } = record.event;
      if (section !== 'balances' || method !== 'Transfer') return;
      seq++; // the runtime data source's handleTransfer
      const [, to, amount] = data.map((d) => d.toString());
      if (BigInt(amount!) < MINIMUM) return;
      const halves = BigInt(amount!) >= SPLIT ? [false, true] : [false];
      const extrinsicIdx = record.phase.isApplyExtrinsic ? record.phase.asApplyExtrinsic.toNumber() : null;
      for (const [handler, filterTo] of [
        ['handleMove', null],
        ['handleMoveToBob', BOB],
      ] as const) {
        if (filterTo !== null && to !== filterTo) continue;
        for (const half of halves)
          moves.push({
            id: `${h}-${idx}-${handler}${half ? '-half' : ''}`,
            handler,
            to: to!,
            amount: amount!,
            label: labels[to!] ?? null,
            extrinsic_idx: extrinsicIdx,
            filter_to: filterTo,
            half,
            seq: seq++,
          });
      }
    };
    const list = [...events.entries()];
    list.filter(([, e]) => e.phase.isInitialization).forEach(([i, e]) => onEvent(e, i));
    block.block.extrinsics.forEach((x, xi) => {
      const own = list.filter(([, e]) => e.phase.isApplyExtrinsic && e.phase.asApplyExtrinsic.toNumber() === xi);
      if (x.method.section === 'utility' && (x.method.method === 'batch' || x.method.method === 'batchAll')) {
        const success = own.some(([, e]) => e.event.section === 'system' && e.event.method === 'ExtrinsicSuccess');
        batches.push({ id: x.hash.toHex(), calls: (x.method.args[0] as unknown as unknown[]).length, success });
      }
      own.forEach(([i, e]) => onEvent(e, i));
    });
    list.filter(([, e]) => e.phase.isFinalization).forEach(([i, e]) => onEvent(e, i));
  }
  return { moves: moves.sort((a, b) => a.id.localeCompare(b.id)), batches: batches.sort((a, b) => a.id.localeCompare(b.id)) };
}

const expected = await expectedRows();

// the fixture, as a user builds it
const parent = await mkdtemp(join(tmpdir(), 'idx-custom-ds-'));
t.teardown(() => rm(parent, { recursive: true, force: true }));
const built = join(parent, 'project');
await cp(join(REPO, 'test/fixtures/substrate-custom-processor'), built, { recursive: true });
await idxCli(built, 'codegen');
await idxCli(built, 'build');

const kind = BACKENDS[BACKENDS.length - 1]!;

t.test('the processor filters and transforms; its values reach the handlers in order; rows equal the chain', async (t) => {
  t.ok(
    expected.moves.some((m) => m.half) &&
      expected.moves.some((m) => m.handler === 'handleMoveToBob') &&
      expected.moves.some((m) => m.label === 'charlie') &&
      expected.batches.some((b) => !b.success),
    'the workload has split values, filtered handlers, labels and a failed batch',
  );
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_custom_ds');
  await indexInProcess(kind, dir, chain.wsUrl, ['--db-schema', schema], END);
  const db = await openIndexedDb(t, kind, dir, [schema]);
  const s = quoteIdent(schema);
  const moves = await execute<Move>(
    db.kysely,
    `select id, handler, "to", amount::text as amount, label, extrinsic_idx, filter_to, half, seq from ${s}.moves order by id`,
  );
  t.same(moves, expected.moves, 'one move per value the processor made, with its label asset, the filter and the order of calls');
  const batches = await execute(db.kysely, `select id, calls, success from ${s}.batches order by id`);
  t.same(batches, expected.batches, 'the older (positional) handler processor: one row per utility batch');
  const labelled = await execute<{ labelled: number }>(db.kysely, `select distinct labelled from ${s}.batches`);
  t.same(labelled, [{ labelled: 2 }], 'its transformer got the assets');
});

t.test("the processor's checks at start: each refusal names the data source's field; nothing is indexed", async (t) => {
  const dir = await copyProject(t, built);
  const manifest = join(dir, 'project.yaml');
  const original = await readFile(manifest, 'utf8');
  // a refused start has made its schema's internal tables: dropped at the end
  const schemas: string[] = [];
  indexedDbReads(t, kind, dir, schemas);
  const cases: [edit: string, message: RegExp][] = [
    [original.replace('minimum: "20000000000"', 'minimum: "lots"'), /dataSources\[1\]: the processor refused it: options\.minimum must be a whole number/],
    [
      original.replace('to: "FoQJpPyadYccjavVdTWxpxU7rUEaYhfLCPwXgkfD6Zat9QP"', 'from: "x"'),
      /dataSources\[1\]\.mapping\.handlers\[1\]\.filter: the processor refused it: unknown filter key from/,
    ],
    [
      original.replace('kind: substrate/UtilityBatch', 'kind: substrate/UtilityCall'),
      /dataSources\[1\]\.mapping\.handlers\[2\]\.kind: substrate\/UtilityCall is not one of the processor's substrate\/BalanceMove, substrate\/UtilityBatch/,
    ],
    [
      original.replace('kind: substrate/BalanceMoves', 'kind: substrate/Moves'),
      /dataSources\[1\]\.kind: is substrate\/Moves, but its processor is for substrate\/BalanceMoves/,
    ],
  ];
  for (const [edit, message] of cases) {
    await writeFile(manifest, edit);
    const schema = uniqueSchemaName('idx_custom_bad');
    schemas.push(schema);
    await t.rejects(indexInProcess(kind, dir, chain.wsUrl, ['--db-schema', schema], END), { code: 'VALIDATION_FAILED', message });
  }
  await writeFile(manifest, original.replace('./processors/balance-moves.js', './node_modules/@subql/frontier-evm-processor/dist/bundle.js'));
  schemas.push(uniqueSchemaName('idx_custom_bad'));
  await t.rejects(indexInProcess(kind, dir, chain.wsUrl, ['--db-schema', schemas.at(-1)!], END), {
    code: 'PROJECT_INCOMPLETE',
    message:
      /dataSources\[1\]\.processor\.file \.\/node_modules\/@subql\/frontier-evm-processor\/dist\/bundle\.js cannot be read \(ENOENT\): install the processor with npm install @subql\/frontier-evm-processor in /,
  });
});
