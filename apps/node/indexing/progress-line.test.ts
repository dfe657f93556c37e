import t from 'tap';
import { createIndexerStatus } from './indexer-status.ts';
import { formatDuration, formatPercent, percentDone, progressLine } from './progress-line.ts';

t.test('the progress line gives height, target, rates and ETA', async (t) => {
  const status = {
    ...createIndexerStatus(),
    lastProcessedHeight: 500,
    currentProcessingHeight: 600,
    targetHeight: 2600,
    blocksProcessed: 600,
    eventsProcessed: 12000,
  };
  const { line, fields, sample } = progressLine(status, { at: 0, blocks: 100, events: 2000 }, 10_000);
  t.equal(line, 'indexed to 500/2600 (processing 600), 50.0 blocks/s, 1000.0 events/s, ETA 40s');
  t.same(
    fields,
    { event: 'progress', height: 500, target: 2600, processing: 600, blocksPerSecond: 50, eventsPerSecond: 1000, etaSeconds: 40 },
    'the same facts as fields',
  );
  t.same(sample, { at: 10_000, blocks: 600, events: 12000 });
  const done = progressLine({ ...status, currentProcessingHeight: 2600 }, sample, 20_000);
  t.match(done.line, /caught up$/);
  t.match(progressLine(status, { at: 0, blocks: 600, events: 12000 }, 1000).line, /ETA unknown$/);
});

t.test('at the target below the head: the line says the node waits for finality, not that it caught up', async (t) => {
  // a fresh anvil: blocks exist, none is final yet
  const fresh = { ...createIndexerStatus(), bestHeight: 12, targetHeight: 0, caughtUp: true };
  const line = progressLine(fresh, { at: 0, blocks: 0, events: 0 }, 5000).line;
  t.equal(
    line,
    'indexed to 0/0 (processing -), 0.0 blocks/s, 0.0 events/s, waiting for 12 blocks to be final (the head is 12; ' +
      'final: the chain\'s "finalized" block, else --block-confirmations behind the head; --unfinalized-blocks indexes to the head)',
  );
  t.notMatch(line, /caught up/, 'never "caught up" while blocks wait for finality');
  t.match(progressLine({ ...fresh, bestHeight: 1 }, { at: 0, blocks: 0, events: 0 }, 5000).line, /waiting for 1 block to be final \(the head is 1;/);
  const behind = { ...fresh, lastProcessedHeight: 36, currentProcessingHeight: 36, targetHeight: 36, bestHeight: 100 };
  t.match(progressLine(behind, { at: 0, blocks: 0, events: 0 }, 5000).line, /^indexed to 36\/36 .*, waiting for 64 blocks to be final \(the head is 100;/);
  const atHead = { ...fresh, lastProcessedHeight: 12, currentProcessingHeight: 12, targetHeight: 12 };
  t.match(progressLine(atHead, { at: 0, blocks: 0, events: 0 }, 5000).line, /, caught up$/, 'at the head (e.g. with --unfinalized-blocks): caught up');
});

t.test('durations', async (t) => {
  t.equal(formatDuration(42), '42s');
  t.equal(formatDuration(125), '2m05s');
  t.equal(formatDuration(3 * 3600 + 7 * 60), '3h07m');
});

t.test('the progress line says how much of the project is done, counted from its start block', async (t) => {
  const status = {
    ...createIndexerStatus(),
    startHeight: 15_000_000,
    lastProcessedHeight: 15_000_599,
    currentProcessingHeight: 15_000_600,
    targetHeight: 15_001_999,
    blocksProcessed: 600,
  };
  const { line, fields } = progressLine(status, { at: 0, blocks: 0, events: 0 }, 10_000);
  t.match(line, /^indexed to 15000599\/15001999 \(30\.0%\) \(processing 15000600\), 60\.0 blocks\/s/);
  t.equal(fields.percent, 30, 'the share as a field for --output-fmt=json');
  t.equal(formatPercent(percentDone(0, 1999, 2000)!), '99.9%', 'rounded down: not 100% before the last block');
  t.equal(formatPercent(percentDone(0, 2000, 2000)!), '100.0%');
  t.equal(percentDone(0, undefined, 2000), 0, 'nothing committed yet');
  t.equal(percentDone(undefined, 10, 20), undefined, 'unknown before the indexer loaded the project');
  t.equal(percentDone(100, undefined, 50), undefined, 'nothing from the start block is final yet');
});

t.test('the long note on finality is said once, then a short line', async (t) => {
  const fresh = { ...createIndexerStatus(), startHeight: 1, bestHeight: 12, targetHeight: 0, caughtUp: true };
  const first = progressLine(fresh, { at: 0, blocks: 0, events: 0 }, 5000);
  t.match(first.line, /--unfinalized-blocks indexes to the head/);
  const second = progressLine(fresh, first.sample, 10_000);
  t.match(second.line, /waiting for 12 blocks to be final \(the head is 12\)$/);
  t.ok(second.line.length < 140, `short: ${second.line}`);
  const third = progressLine({ ...fresh, bestHeight: 13 }, second.sample, 15_000);
  t.notMatch(third.line, /--unfinalized-blocks/, 'and stays short');
});
