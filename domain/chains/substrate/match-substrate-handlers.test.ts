import t from 'tap';
import type { DataSource } from '../../project/project-model.ts';
import { compileSubstrateSource, matchSubstrateHandlers } from './match-substrate-handlers.ts';
import type { SubstrateBlockSummary } from './substrate-block.ts';
import type { ProcessorShape } from './custom-data-source.ts';

const ds = (handlers: DataSource['mapping']['handlers'], startBlock = 1, endBlock?: number): DataSource => ({
  kind: 'substrate/Runtime',
  startBlock,
  ...(endBlock !== undefined && { endBlock }),
  assets: {},
  mapping: { file: './dist/index.js', handlers },
});

// timestamp.set, a signed transfer (succeeds), a signed batch (fails); events by phase
const block: SubstrateBlockSummary = {
  height: 20,
  hash: '0x20',
  parentHash: '0x19',
  timestamp: 1_700_000_400,
  specVersion: 900,
  extrinsics: [
    { section: 'timestamp', method: 'set', isSigned: false, success: true },
    { section: 'balances', method: 'transferKeepAlive', isSigned: true, success: true },
    { section: 'utility', method: 'batchAll', isSigned: true, success: false },
  ],
  events: [
    { section: 'balances', method: 'Transfer', extrinsic: 'initialization' },
    { section: 'system', method: 'ExtrinsicSuccess', extrinsic: 0 },
    { section: 'balances', method: 'Transfer', extrinsic: 1 },
    { section: 'system', method: 'ExtrinsicSuccess', extrinsic: 1 },
    { section: 'system', method: 'ExtrinsicFailed', extrinsic: 2 },
    { section: 'balances', method: 'Transfer', extrinsic: 'finalization' },
  ],
};

t.test("SubQuery's order: block handlers, initialization events, each extrinsic's calls then its events, finalization events", async (t) => {
  const sources = [
    ds([
      { kind: 'substrate/EventHandler', handler: 'transfer', filter: { module: 'balances', method: 'Transfer' } },
      { kind: 'substrate/CallHandler', handler: 'call' },
      { kind: 'substrate/BlockHandler', handler: 'block' },
    ]),
    ds([{ kind: 'substrate/EventHandler', handler: 'anySystem', filter: { module: 'system' } }]),
  ].map((d, i) => compileSubstrateSource(d, i));
  const calls = matchSubstrateHandlers(sources, block, block.timestamp - 12).map((c) => ('index' in c ? `${c.handler}:${c.index}` : c.handler));
  t.same(calls, ['block', 'transfer:0', 'call:0', 'anySystem:1', 'call:1', 'transfer:2', 'anySystem:3', 'call:2', 'anySystem:4', 'transfer:5']);
});

t.test('filters: module, method, success, isSigned; modulo; start and end blocks', async (t) => {
  const names = (handlers: DataSource['mapping']['handlers'], start = 1, end?: number) =>
    matchSubstrateHandlers([compileSubstrateSource(ds(handlers, start, end), 0)], block, block.timestamp - 12).map((c) => ('index' in c ? c.index : -1));
  t.same(names([{ kind: 'substrate/CallHandler', handler: 'c', filter: { success: false } }]), [2]);
  t.same(names([{ kind: 'substrate/CallHandler', handler: 'c', filter: { isSigned: false } }]), [0]);
  t.same(names([{ kind: 'substrate/CallHandler', handler: 'c', filter: { module: 'utility', method: 'batchAll', success: true } }]), []);
  t.same(names([{ kind: 'substrate/EventHandler', handler: 'e', filter: { method: 'ExtrinsicFailed' } }]), [4]);
  t.same(names([{ kind: 'substrate/BlockHandler', handler: 'b', filter: { modulo: 10 } }]), [-1], '20 % 10');
  t.same(names([{ kind: 'substrate/BlockHandler', handler: 'b', filter: { modulo: 3 } }]), []);
  t.same(names([{ kind: 'substrate/BlockHandler', handler: 'b' }], 21), [], 'not started yet');
  t.same(names([{ kind: 'substrate/BlockHandler', handler: 'b' }], 1, 19), [], 'ended');
});

t.test('a timestamp (cron) block filter runs once per tick, from the block times', async (t) => {
  const source = [compileSubstrateSource(ds([{ kind: 'substrate/BlockHandler', handler: 'hourly', filter: { timestamp: '0 * * * *' } }]), 0)];
  const hour = 1_700_002_800; // a whole hour (UTC)
  t.equal(matchSubstrateHandlers(source, { ...block, timestamp: hour }, hour - 12).length, 1, 'the block at the tick');
  t.equal(matchSubstrateHandlers(source, { ...block, timestamp: hour + 12 }, hour).length, 0, 'the next block');
  t.equal(matchSubstrateHandlers(source, { ...block, timestamp: hour + 3 }, hour - 9).length, 1, 'the first block past the tick');
});

t.test(
  "custom data sources: a processor's handlers ride on event, call and block handlers, matched by any of its base filters, in SubQuery's order",
  async (t) => {
    const custom: DataSource = {
      kind: 'substrate/Moves',
      startBlock: 1,
      assets: { labels: { file: './labels.json' } },
      processor: { file: './processors/moves.js', options: { minimum: '1' } },
      mapping: {
        file: './dist/index.js',
        handlers: [
          { kind: 'custom', processorKind: 'substrate/Move', handler: 'move', filter: { to: 'x' } },
          { kind: 'custom', processorKind: 'substrate/Batch', handler: 'batch' },
          { kind: 'custom', processorKind: 'substrate/Any', handler: 'any' },
          { kind: 'custom', processorKind: 'substrate/Tenth', handler: 'tenth' },
        ],
      },
    };
    const shape: ProcessorShape = {
      kind: 'substrate/Moves',
      handlers: {
        'substrate/Move': { base: 'event', filters: [{ module: 'balances', method: 'Transfer' }] },
        'substrate/Batch': { base: 'call', filters: [{ module: 'balances' }, { module: 'utility', method: 'batchAll' }] },
        'substrate/Any': { base: 'event', filters: [] },
        'substrate/Tenth': { base: 'block', filters: [{ modulo: 10 }] },
      },
    };
    const context = { shapeOf: (file: string) => (file === '/p/processors/moves.js' ? shape : undefined), absolute: (file: string) => `/p/${file.slice(2)}` };
    const sources = [
      compileSubstrateSource(ds([{ kind: 'substrate/EventHandler', handler: 'transfer', filter: { module: 'balances', method: 'Transfer' } }]), 0),
      compileSubstrateSource(custom, 1, context),
    ];
    t.same(sources[1]!.custom, {
      kind: 'substrate/Moves',
      startBlock: 1,
      processor: { file: '/p/processors/moves.js', options: { minimum: '1' } },
      assets: [['labels', { file: '/p/labels.json' }]],
      mapping: {
        file: './dist/index.js',
        handlers: [
          { kind: 'substrate/Move', handler: 'move', filter: { to: 'x' } },
          { kind: 'substrate/Batch', handler: 'batch' },
          { kind: 'substrate/Any', handler: 'any' },
          { kind: 'substrate/Tenth', handler: 'tenth' },
        ],
      },
    });
    const calls = matchSubstrateHandlers(sources, block, block.timestamp - 12).map(
      (c) => `${c.handler}${'index' in c ? `:${c.index}` : ''}${c.custom ? `@${c.custom.source}.${c.custom.position}` : ''}`,
    );
    t.same(calls, [
      'tenth@1.3',
      'transfer:0',
      'move:0@1.0',
      'any:0@1.2',
      'any:1@1.2',
      'batch:1@1.1',
      'transfer:2',
      'move:2@1.0',
      'any:2@1.2',
      'any:3@1.2',
      'batch:2@1.1',
      'any:4@1.2',
      'transfer:5',
      'move:5@1.0',
      'any:5@1.2',
    ]);
    t.equal(
      matchSubstrateHandlers(sources, block, 0).find((c) => c.custom !== undefined)!.custom!.ds,
      sources[1]!.custom,
      'a call carries the data source its processor is handed',
    );
    t.throws(() => compileSubstrateSource(custom, 1, { ...context, shapeOf: () => undefined }), /its processor \/p\/processors\/moves\.js is not loaded/);
  },
);

t.test("SubQuery's specVersion filter: [from, to] of the runtime a block ran, both ends kept, null for open, on every handler kind", async (t) => {
  const calls = (specVersion: [number | null, number | null]) =>
    matchSubstrateHandlers(
      [
        compileSubstrateSource(
          ds([
            { kind: 'substrate/BlockHandler', handler: 'b', filter: { specVersion } },
            { kind: 'substrate/EventHandler', handler: 'e', filter: { method: 'ExtrinsicFailed', specVersion } },
            { kind: 'substrate/CallHandler', handler: 'c', filter: { success: false, specVersion } },
          ]),
          0,
        ),
      ],
      block,
      block.timestamp - 12,
    ).map((c) => c.handler);
  t.same(calls([900, 900]), ['b', 'c', 'e'], 'the block ran spec version 900');
  t.same(calls([null, 900]), ['b', 'c', 'e']);
  t.same(calls([899, null]), ['b', 'c', 'e']);
  t.same(calls([901, null]), []);
  t.same(calls([null, 899]), []);
});
