import t from 'tap';
import { searchTsquery } from './search-query.ts';

t.test('search strings read as SubQuery reads them', async (t) => {
  const cases: [string, string][] = [
    ['quick foxes', 'quick&foxes'],
    ['fox or lazy', 'fox|lazy'],
    ['fox, lazy', 'fox|lazy'],
    ['dog -chain', 'dog&!chain'],
    ['dog & !chain', 'dog&!chain'],
    ['jump*', 'jump:*'],
    ['"quick fox"', '"quick<->fox"'],
    ['(fox | dog) lazy', '(fox|dog)&lazy'],
    ['fox &', 'fox'],
    ['   ', ''],
  ];
  for (const [search, tsquery] of cases) t.equal(searchTsquery(search), tsquery, search);
});
