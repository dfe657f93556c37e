import t from 'tap';
import { createLiveSlot } from './live-slot.ts';

t.test('callers of ready() meanwhile share the one being made; drop() makes the next ready() make a fresh one', async (t) => {
  let made = 0;
  const live = createLiveSlot(async () => ({ n: ++made }));
  t.equal(live.current, undefined, 'nothing live before ready()');
  const [a, b] = await Promise.all([live.ready(), live.ready()]);
  t.equal(made, 1);
  t.equal(a, b);
  t.equal(live.current, a);
  t.equal(live.drop(), a, 'drop() gives the live one to dispose of');
  t.equal(live.current, undefined);
  t.same(await live.ready(), { n: 2 });
});

t.test('one that failed to be made is forgotten: the next ready() tries again', async (t) => {
  let attempts = 0;
  const live = createLiveSlot(async () => {
    if (++attempts === 1) throw new Error('isolate could not start');
    return 'up';
  });
  await t.rejects(live.ready(), { message: 'isolate could not start' });
  t.equal(await live.ready(), 'up');
  t.equal(attempts, 2);
});
