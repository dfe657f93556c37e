import t from 'tap';
import { visibleVersions } from './visible-versions.ts';

t.test('the versions a read sees, as SQL', async (t) => {
  t.equal(visibleVersions(false, 't1', '$1::int8'), 'true', 'no history: every row');
  t.equal(visibleVersions(true, undefined, undefined), 'upper_inf(__block_range)', 'the live versions');
  t.equal(visibleVersions(true, 't1', undefined), 'upper_inf(t1.__block_range)');
  t.equal(visibleVersions(true, undefined, '$2::int8'), '(lower(__block_range) <= ($2::int8) and __block_range @> ($2::int8))', 'alive at a height');
  t.equal(
    visibleVersions(true, 't2', 'o.block_height'),
    '(lower(t2.__block_range) <= (o.block_height) and t2.__block_range @> (o.block_height))',
    'at a height that varies by row',
  );
});
