import t from 'tap';
import type { ChainHeads } from '../../../domain/blocks/chain-heads.ts';
import { withWarmHeads } from './warm-heads.ts';

const chain = (answers: { best: (number | Error)[]; finalized: (number | Error)[] }) => {
  const asked = { best: 0, finalized: 0, refs: 0 };
  const next = <T>(list: (T | Error)[]) => {
    const a = list.shift();
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a as T);
  };
  const source: ChainHeads & { name: string } = {
    name: 'the chain',
    bestHeight: () => (asked.best++, next(answers.best)),
    finalizedHeight: () => (asked.finalized++, next(answers.finalized)),
    getBlockRefs: async () => (asked.refs++, []),
  };
  return { source, asked };
};

t.test('asked at once; the first look is that answer, later looks ask again', async (t) => {
  const { source, asked } = chain({ best: [100, 105], finalized: [90, 95] });
  const warm = withWarmHeads(source);
  t.same(asked, { best: 1, finalized: 1, refs: 0 }, 'asked before anyone looks');
  t.equal(await warm.bestHeight(), 100);
  t.equal(await warm.finalizedHeight(), 90);
  t.same(asked, { best: 1, finalized: 1, refs: 0 }, 'no second round trip for the first look');
  t.equal(await warm.bestHeight(), 105);
  t.equal(await warm.finalizedHeight(), 95);
  await warm.getBlockRefs([1]);
  t.same(asked, { best: 2, finalized: 2, refs: 1 }, 'the rest goes to the chain');
  t.equal(warm.name, 'the chain', 'the source is otherwise itself');
});

t.test('an early answer that failed, or grew old, is asked again', async (t) => {
  const { source, asked } = chain({ best: [new Error('down'), 7], finalized: [1, 2] });
  let clock = 0;
  const warm = withWarmHeads(source, 1000, () => clock);
  t.equal(await warm.bestHeight(), 7, 'the failure is not passed on: the chain is asked');
  clock = 5000;
  t.equal(await warm.finalizedHeight(), 2, 'too old: asked anew');
  t.same(asked, { best: 2, finalized: 2, refs: 0 });
});
