import t from 'tap';
import type { WriteOp } from './isolate/wire.ts';
import { createShippedWrites } from './shipped-writes.ts';

const write = (id: string): WriteOp => [0, 'set', 'Seen', id, { id }];
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

t.test('batches are applied in the order shipped, whatever order they arrive in; a wait ends once its batches are applied', async (t) => {
  const applied: string[] = [];
  const shipped = createShippedWrites(async (writes) => {
    await tick();
    for (const w of writes) applied.push(String(w[3]));
  });
  let waited = false;
  const two = shipped.settled(2).then(() => (waited = true));
  shipped.receive(1, [write('b')]);
  await tick();
  t.same(applied, [], 'batch 1 waits for batch 0');
  shipped.receive(0, [write('a')]);
  shipped.receive(2, [write('c')]);
  await two;
  t.ok(waited);
  t.same(applied.slice(0, 2), ['a', 'b']);
  await shipped.settled(3);
  t.same(applied, ['a', 'b', 'c']);
  await shipped.settled(0);
});

t.test('after a refused batch the later ones are not applied; each wait rejects with the failure once its batches came, until the next run', async (t) => {
  const applied: string[] = [];
  const shipped = createShippedWrites(async (writes) => {
    if (writes.some((w) => w[3] === 'bad')) throw new Error('refused');
    for (const w of writes) applied.push(String(w[3]));
  });
  shipped.receive(0, [write('a')]);
  shipped.receive(1, [write('bad')]);
  const pending = shipped.settled(3);
  let settled = false;
  pending.catch(() => (settled = true));
  await tick();
  t.notOk(settled, 'batch 2 has not come: the wait goes on');
  shipped.receive(2, [write('c')]);
  await t.rejects(pending, { message: 'refused' });
  t.same(applied, ['a'], 'nothing after the refused batch');
  shipped.nextRun();
  shipped.receive(3, [write('d')]);
  await shipped.settled(4);
  t.same(applied, ['a', 'd'], 'the next run applies again');
});

t.test('closed: the batch being applied finishes, no later one is applied, and waits end', async (t) => {
  const applied: string[] = [];
  const shipped = createShippedWrites(async (writes) => {
    await tick();
    for (const w of writes) applied.push(String(w[3]));
  });
  shipped.receive(0, [write('a')]);
  shipped.receive(1, [write('b')]);
  await new Promise((resolve) => setImmediate(resolve));
  await shipped.close();
  t.same(applied, ['a'], 'the batch under way completed; the next was dropped');
  shipped.receive(2, [write('c')]);
  await shipped.settled(3);
  t.same(applied, ['a']);
});
