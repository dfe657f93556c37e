import t from 'tap';
import { longFunctions } from '../scripts/long-functions.mjs';

// Issue 29: no function in apps/, domain/ or infra/ over 150 lines (a factory's closures count toward it).
t.test('no function in apps/, domain/ or infra/ is over 150 lines', async (t) => {
  const list = longFunctions(150)
    .map((f) => `${f.lines} ${f.file}:${f.line} ${f.name}`)
    .join('\n');
  t.same(list, '', 'split these: one concept per file, pure builders, a short executor');
});

t.test('the count includes inner functions and ignores tests', async (t) => {
  const all = longFunctions(0);
  t.ok(all.length > 1000, 'every function is seen');
  t.notOk(
    all.some((f) => f.file.endsWith('.test.ts')),
    'tests are not counted',
  );
  t.ok(
    all.some((f) => f.file === 'infra/postgres/create-entity-store.ts' && f.name === 'createEntityStore'),
    'a factory is counted by its name',
  );
});
