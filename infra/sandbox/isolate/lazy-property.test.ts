import t from 'tap';
import { lazyProperty } from './lazy-property.ts';

const descriptor = (o: object, key: string) => Object.getOwnPropertyDescriptor(o, key)!;

t.test('made once, on first read, then a plain enumerable and writable property', async (t) => {
  let made = 0;
  const o: Record<string, unknown> = { a: 1 };
  lazyProperty(o, 'logs', () => [++made]);
  t.equal(made, 0, 'nothing made before a read');
  t.same(Object.keys(o), ['a', 'logs']);
  const first = o.logs;
  t.same(first, [1]);
  t.equal(o.logs, first, 'the same value on the next read');
  t.equal(made, 1);
  t.same(descriptor(o, 'logs'), { value: [1], writable: true, enumerable: true, configurable: true });
  o.logs = 'x';
  t.equal(o.logs, 'x');
});

t.test('written before it is read: the value written, and nothing made', async (t) => {
  let made = 0;
  const o: Record<string, unknown> = {};
  lazyProperty(o, 'events', () => ++made);
  o.events = 'mine';
  t.equal(o.events, 'mine');
  t.equal(made, 0);
  t.same(descriptor(o, 'events'), { value: 'mine', writable: true, enumerable: true, configurable: true });
});

t.test('every object shares one accessor pair per key, each with its own value', async (t) => {
  const objects = [0, 1, 2].map((i) => {
    const o: Record<string, unknown> = { i };
    lazyProperty(o, 'transactions', () => `of ${i}`);
    return o;
  });
  const [a, b] = objects.map((o) => descriptor(o, 'transactions'));
  t.equal(a!.get, b!.get, 'one getter: a getter made per object gives each object a shape of its own');
  t.equal(a!.set, b!.set);
  t.same(
    objects.map((o) => o.transactions),
    ['of 0', 'of 1', 'of 2'],
  );
});

t.test('read or written through an object made from it (Object.create): made on, and written to, the object it was made lazy on', async (t) => {
  const base: Record<string, unknown> = {};
  lazyProperty(base, 'logs', () => 'made');
  const derived = Object.create(base) as Record<string, unknown>;
  t.equal(derived.logs, 'made');
  t.equal(descriptor(base, 'logs').value, 'made');
  t.notOk(Object.hasOwn(derived, 'logs'));

  const other: Record<string, unknown> = {};
  lazyProperty(other, 'logs', () => 'never');
  (Object.create(other) as Record<string, unknown>).logs = 'written';
  t.equal(other.logs, 'written');
});

t.test('a make that throws leaves the property lazy: the next read makes it again', async (t) => {
  let tries = 0;
  const o: Record<string, unknown> = {};
  lazyProperty(o, 'extrinsic', () => {
    if (++tries === 1) throw new Error('not yet');
    return 'ok';
  });
  t.throws(() => o.extrinsic, /not yet/);
  t.equal(o.extrinsic, 'ok');
  t.equal(tries, 2);
});
