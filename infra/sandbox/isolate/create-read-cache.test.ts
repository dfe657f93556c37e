import t from 'tap';
import { createReadCache } from './create-read-cache.ts';

const rec = (id: string, n: number) => ({ id, n });

t.test('answers with the last write, a known absence as null, an unknown entity as undefined', async (t) => {
  const cache = createReadCache(100);
  t.equal(cache.get('Account', 'a'), undefined);
  cache.put('Account', 'a', rec('a', 1));
  cache.put('Account', 'a', rec('a', 2));
  cache.put('Account', 'b', null);
  t.same(cache.get('Account', 'a'), rec('a', 2));
  t.equal(cache.get('Account', 'b'), null);
  t.equal(cache.get('Transfer', 'a'), undefined, 'entities are apart');
  cache.forget('Account', 'a');
  t.equal(cache.get('Account', 'a'), undefined);
  cache.put('Account', 'c', rec('c', 1));
  cache.clear();
  t.equal(cache.get('Account', 'c'), undefined);
});

t.test('never holds more than max entries; what is read or written often stays, and a stale copy is never seen', async (t) => {
  const max = 10;
  const cache = createReadCache(max);
  // both types read once: the cache keeps the types the mappings read
  cache.get('Account', 'hot');
  cache.get('Transfer', 'none');
  cache.put('Account', 'hot', rec('hot', 0));
  for (let i = 0; i < 1000; i++) {
    cache.put('Transfer', String(i), rec(String(i), i));
    if (i % 3 === 0) cache.put('Account', 'hot', rec('hot', i));
    else t.equal(cache.get('Account', 'hot')?.n, i - (i % 3), 'the latest write of an entity read all along');
    const held = Array.from({ length: i + 1 }, (_, k) => cache.get('Transfer', String(i - k))).filter((r) => r !== undefined);
    if (held.length + 1 > max) t.fail(`${held.length + 1} entries held after ${i + 1} writes`);
  }
  t.same(cache.get('Transfer', '999'), rec('999', 999));
  t.equal(cache.get('Transfer', '0'), undefined, 'the oldest went');
});

t.test('max 0 keeps nothing', async (t) => {
  const cache = createReadCache(0);
  cache.put('Account', 'a', rec('a', 1));
  t.equal(cache.get('Account', 'a'), undefined);
});

t.test('the writes of a type never read are not kept, and do not push out the entities of a type that is', async (t) => {
  const cache = createReadCache(10);
  cache.get('Account', 'a');
  cache.put('Account', 'a', rec('a', 1));
  for (let i = 0; i < 100; i++) cache.put('Transfer', String(i), rec(String(i), i));
  t.same(cache.get('Account', 'a'), rec('a', 1), 'the account stays');
  t.equal(cache.get('Transfer', '99'), undefined, 'written before its type was read: unknown, the host is asked');
  cache.put('Transfer', '99', rec('99', 99));
  t.same(cache.get('Transfer', '99'), rec('99', 99), 'once read, its writes are kept');
});

t.test('never holds much more than maxBytes of data: large entities push out old ones before the entry count does', async (t) => {
  const cache = createReadCache(1000, 10_000);
  cache.get('Doc', 'x');
  const big = (i: number) => ({ id: String(i), text: 'x'.repeat(1000) });
  for (let i = 0; i < 100; i++) cache.put('Doc', String(i), big(i));
  const held = Array.from({ length: 100 }, (_, i) => cache.get('Doc', String(i))).filter((r) => r !== undefined).length;
  t.ok(held <= 12, `${held} entities of ~1 kB held under a 10 kB bound`);
  t.ok(held >= 4, 'the newest are held');
  t.same(cache.get('Doc', '99'), big(99));
});
