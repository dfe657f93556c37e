import t from 'tap';
import { deepened, startFetchDepth } from './fetch-depth.ts';

t.test('one range per worker plus one, one deeper per wait, at most two deeper', async (t) => {
  let d = startFetchDepth(1);
  t.same(d, { depth: 2, max: 4 });
  const depths = [];
  for (let i = 0; i < 5; i++) depths.push((d = deepened(d)).depth);
  t.same(depths, [3, 4, 4, 4, 4]);
  t.same(startFetchDepth(4), { depth: 5, max: 7 }, '--workers 4');
});
