import t from 'tap';
import { createIdFilter } from './id-filter.ts';

const transferId = (n: number) => `0x${n.toString(16).padStart(64, '0')}-${n % 7}`;

t.test('an added id is always held; an empty filter holds nothing', async (t) => {
  const filter = createIdFilter();
  t.equal(filter.mightHold('a'), false);
  t.equal(filter.mightHold(''), false);
  const added = Array.from({ length: 100_000 }, (_, n) => transferId(n));
  for (const id of added) filter.add(id);
  filter.add('');
  filter.add('é€😀');
  t.equal(added.filter((id) => !filter.mightHold(id)).length, 0, 'no added id is denied, across the layers');
  t.ok(filter.mightHold('') && filter.mightHold('é€😀'));
});

t.test('add tells whether the id might have been held already', async (t) => {
  const filter = createIdFilter();
  t.equal(filter.add('a'), false);
  t.equal(filter.add('a'), true);
  t.equal(filter.add('b'), false);
  const many = Array.from({ length: 50_000 }, (_, n) => transferId(n));
  t.equal(many.filter((id) => filter.add(id)).length < 1_000, true, 'new ids, across layers: about 1 % answered maybe');
  t.equal(
    many.every((id) => filter.add(id)),
    true,
    'every one added is held',
  );
});

t.test('about 1 % of ids never added are answered "maybe"', async (t) => {
  const filter = createIdFilter();
  for (let n = 0; n < 100_000; n++) filter.add(transferId(n));
  let maybe = 0;
  for (let n = 100_000; n < 200_000; n++) if (filter.mightHold(transferId(n))) maybe++;
  t.ok(maybe < 2_000, `${maybe} of 100,000 absent ids answered maybe`);
  // ids that differ in one character only (accounts' addresses)
  const near = createIdFilter();
  for (let n = 0; n < 10_000; n++) near.add(`0x${n.toString(16).padStart(40, '0')}`);
  let nearMaybe = 0;
  for (let n = 10_000; n < 20_000; n++) if (near.mightHold(`0x${n.toString(16).padStart(40, '0')}`)) nearMaybe++;
  t.ok(nearMaybe < 200, `${nearMaybe} of 10,000 near ids answered maybe`);
});

t.test('past its memory bound it holds everything: "maybe" for any id, added or not', async (t) => {
  // the first layer (100 ids × 10 bits → 1,024 bits) and the second (2,048) fit 4,096 bits; the third does not
  const filter = createIdFilter(4_096, 100);
  const others = Array.from({ length: 1000 }, (_, n) => `other-${n}`);
  for (let n = 0; n < 250; n++) filter.add(`id-${n}`);
  t.equal(filter.mightHold('id-0'), true);
  t.ok(
    others.some((id) => !filter.mightHold(id)),
    'within the bound absent ids are told apart',
  );
  for (let n = 250; n < 400; n++) filter.add(`id-${n}`);
  t.equal(filter.mightHold('id-399'), true);
  t.ok(
    others.every((id) => filter.mightHold(id)),
    'past it nothing is proved absent',
  );
  t.equal(filter.add('other-0'), true);
});
