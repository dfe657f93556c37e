import t from 'tap';
import { aggregateItems, aggregateSelect, groupedAggregateSelect } from './aggregate-reads.ts';

t.test('aggregates of all rows, and per parent', async (t) => {
  const items = aggregateItems(['sum(t."v")::text', 'max(t."v")']);
  t.equal(items, 'count(*) as __count, sum(t."v")::text as a0, max(t."v") as a1');
  t.equal(aggregateSelect(items, 'x t where w'), `select ${items} from x t where w`);
  t.equal(aggregateSelect('count(*) as __count', 'x t where w', 't."p"'), 'select t."p" as __parent, count(*) as __count from x t where w group by t."p"');
});

t.test('grouped aggregates: the groups in order, at most a page of them', async (t) => {
  const p = { items: 'count(*) as __count', rows: 'x t where w', keys: ['t."k"'], having: 'true', limit: 101 };
  t.equal(groupedAggregateSelect(p), 'select t."k"::text as g0, count(*) as __count from x t where w group by t."k" order by t."k" limit 101');
  t.equal(
    groupedAggregateSelect({ ...p, having: 'count(*) > $1::numeric', parent: 't."p"' }),
    'select * from (select t."p" as __parent, row_number() over (partition by t."p" order by t."k") as __n, t."k"::text as g0, count(*) as __count from x t where w ' +
      'group by t."p", t."k" having count(*) > $1::numeric order by t."p", t."k") g where g.__n <= 101 order by g.__parent, g.__n',
  );
});
