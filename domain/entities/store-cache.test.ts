import t from 'tap';
import type { EntityData, EntityStore, FieldFilter, QueryOptions, StoreOperation } from './entity-store.ts';
import { UNASKED_IDS_CAP } from './known-ids.ts';
import { createStoreCache } from './store-cache.ts';

/** Live rows only, sorted like the database: enough to check the overlay logic. */
function memoryStore(): EntityStore & { rows: Map<string, Map<string, EntityData>>; reads: number } {
  const rows = new Map<string, Map<string, EntityData>>();
  const table = (e: string) => rows.get(e) ?? rows.set(e, new Map()).get(e)!;
  const page = (list: EntityData[], o: QueryOptions = {}) => {
    const key = o.orderBy ?? 'id';
    const dir = o.orderDirection === 'DESC' ? -1 : 1;
    list.sort((a, b) => dir * (String(a[key]) < String(b[key]) ? -1 : String(a[key]) > String(b[key]) ? 1 : 0));
    return list.slice(o.offset ?? 0, (o.offset ?? 0) + (o.limit ?? 100));
  };
  const test = (d: EntityData, [f, op, v]: FieldFilter) =>
    op === '=' ? d[f] === v : op === '!=' ? d[f] !== v : op === 'in' ? (v as unknown[]).includes(d[f]) : !(v as unknown[]).includes(d[f]);
  const s = {
    rows,
    reads: 0,
    async flush(batch: { operations: readonly StoreOperation[] }) {
      for (const op of batch.operations) {
        if (op.op === 'set') table(op.entity).set(op.id, { ...op.data });
        else table(op.entity).delete(op.id);
      }
    },
    async get(e: string, id: string) {
      s.reads++;
      const r = table(e).get(id);
      return r && { ...r };
    },
    async getByField(e: string, f: string, v: unknown, o?: QueryOptions) {
      return page(
        [...table(e).values()].filter((d) => test(d, [f, Array.isArray(v) ? 'in' : '=', v])).map((d) => ({ ...d })),
        o,
      );
    },
    async getByFields(e: string, fs: readonly FieldFilter[], o?: QueryOptions) {
      return page(
        [...table(e).values()].filter((d) => fs.every((x) => test(d, x))).map((d) => ({ ...d })),
        o,
      );
    },
  } as unknown as EntityStore & { rows: Map<string, Map<string, EntityData>>; reads: number };
  return s;
}

t.test('reads see unflushed writes, including removes, then the database after a flush', async (t) => {
  const db = memoryStore();
  const cache = createStoreCache(db, { queryLimit: 100, getCacheSize: 0 });
  cache.set('Account', 'a', { id: 'a', balance: 5n }, 1);
  t.same(await cache.get('Account', 'a'), { id: 'a', balance: 5n });
  cache.remove('Account', 'a', 2);
  t.equal(await cache.get('Account', 'a'), undefined);
  cache.set('Account', 'a', { id: 'a', balance: 7n }, 3);

  const { operations: ops, mark } = cache.takeOperations();
  t.same(
    ops.map((o) => `${o.op}@${o.height}`),
    ['set@1', 'remove@2', 'set@3'],
  );
  cache.set('Account', 'b', { id: 'b', balance: 1n }, 4);
  await db.flush({ operations: ops });
  cache.flushed(mark);
  t.equal(cache.pendingCount(), 1, 'the write made during the flush stays pending');
  t.same(await cache.get('Account', 'a'), { id: 'a', balance: 7n }, 'now read from the database');
  t.same(
    cache.takeOperations().operations.map((o) => o.id),
    ['b'],
  );
});

t.test('a write made after taking keeps the newer value visible after the flush', async (t) => {
  const db = memoryStore();
  const cache = createStoreCache(db, { queryLimit: 100, getCacheSize: 0 });
  cache.set('A', 'x', { id: 'x', v: 1 }, 1);
  const first = cache.takeOperations();
  cache.set('A', 'x', { id: 'x', v: 2 }, 2);
  cache.set('A', 'y', { id: 'y', v: 3 }, 2);
  const second = cache.takeOperations();
  await db.flush({ operations: first.operations });
  cache.flushed(first.mark);
  t.same(await cache.get('A', 'x'), { id: 'x', v: 2 });
  t.same(await cache.get('A', 'y'), { id: 'y', v: 3 }, 'taken later, not yet flushed: still visible');
  await db.flush({ operations: second.operations });
  cache.flushed(second.mark);
  t.equal(cache.pendingCount(), 0);
});

t.test('getByField and getByFields merge pending writes with the database, ordered and paged', async (t) => {
  const db = memoryStore();
  const cache = createStoreCache(db, { queryLimit: 3, getCacheSize: 0 });
  for (const [id, owner] of [
    ['t1', 'a'],
    ['t2', 'b'],
    ['t3', 'a'],
    ['t4', 'a'],
  ] as const)
    cache.set('Transfer', id, { id, owner }, 1);
  const taken = cache.takeOperations();
  await db.flush({ operations: taken.operations });
  cache.flushed(taken.mark);

  cache.set('Transfer', 't0', { id: 't0', owner: 'a' }, 2); // new, matches
  cache.set('Transfer', 't3', { id: 't3', owner: 'b' }, 2); // no longer matches
  cache.remove('Transfer', 't4', 2); // gone
  t.same(
    (await cache.getByField('Transfer', 'owner', 'a')).map((r) => r.id),
    ['t0', 't1'],
  );
  t.same(
    (await cache.getByField('Transfer', 'owner', ['a', 'b'], { limit: 2, offset: 1 })).map((r) => r.id),
    ['t1', 't2'],
  );
  t.same(
    (await cache.getByField('Transfer', 'owner', ['a', 'b'], { orderBy: 'id', orderDirection: 'DESC' })).map((r) => r.id),
    ['t3', 't2', 't1'],
  );
  t.same(
    (
      await cache.getByFields('Transfer', [
        ['owner', '!=', 'a'],
        ['id', '!in', ['t2']],
      ])
    ).map((r) => r.id),
    ['t3'],
  );
  t.same(await cache.getOneByField('Transfer', 'owner', 'b'), { id: 't2', owner: 'b' });
});

t.test('--query-limit is the default page and the largest limit', async (t) => {
  const cache = createStoreCache(memoryStore(), { queryLimit: 2, getCacheSize: 0 });
  for (const id of ['a', 'b', 'c']) cache.set('E', id, { id, k: 1 }, 1);
  t.equal((await cache.getByField('E', 'k', 1)).length, 2);
  await t.rejects(cache.getByField('E', 'k', 1, { limit: 3 }), {
    code: 'QUERY_LIMIT_EXCEEDED',
    message: /limit 3 is above the query limit of 2; raise it with --query-limit/,
  });
});

t.test('bulk operations, partial bulkUpdate, invalid ids, discard', async (t) => {
  const db = memoryStore();
  const cache = createStoreCache(db, { queryLimit: 100, getCacheSize: 0 });
  cache.bulkCreate(
    'E',
    [
      { id: 'a', x: 1, y: 1 },
      { id: 'b', x: 2, y: 2 },
    ],
    1,
  );
  await cache.bulkUpdate('E', [{ id: 'a', x: 10, y: 99 }], 2, ['x']);
  t.same(await cache.get('E', 'a'), { id: 'a', x: 10, y: 1 }, 'only the named fields change');
  await t.rejects(cache.bulkUpdate('E', [{ id: 'zz', x: 1 }], 2, ['x']), { code: 'STORE_NOT_FOUND' });
  cache.bulkRemove('E', ['a', 'b'], 3);
  t.equal(await cache.get('E', 'b'), undefined);
  t.throws(() => cache.set('E', '', { id: '' }, 1), { code: 'STORE_INVALID_ID' });
  cache.discard();
  t.equal(cache.pendingCount(), 0);
  t.same(cache.takeOperations().operations, []);
});

t.test('recent reads are kept up to --store-get-cache-size and dropped on write', async (t) => {
  const db = memoryStore();
  const cache = createStoreCache(db, { queryLimit: 100, getCacheSize: 2 });
  await db.flush({ operations: [{ entity: 'E', id: 'a', height: 1, op: 'set', data: { id: 'a', v: 1 } }] });
  await cache.get('E', 'a');
  await cache.get('E', 'a');
  t.equal(db.reads, 1, 'the second read came from memory');
  cache.set('E', 'a', { id: 'a', v: 2 }, 2);
  t.same(await cache.get('E', 'a'), { id: 'a', v: 2 });
  await cache.get('E', 'b');
  await cache.get('E', 'c');
  await cache.get('E', 'd');
  const before = db.reads;
  await cache.get('E', 'b');
  t.equal(db.reads, before + 1, 'the oldest read was evicted');
});

t.test('fresh entity types: a get of an id never written reads nothing from the database, and answers as the database would', async (t) => {
  const db = memoryStore();
  const cache = createStoreCache(db, { queryLimit: 100, getCacheSize: 0, freshEntities: ['Account'] });
  t.equal(await cache.get('Account', 'a'), undefined);
  t.equal(db.reads, 0, 'absent without a read');
  cache.set('Account', 'a', { id: 'a', balance: 1n }, 1);
  cache.remove('Account', 'b', 1);
  const { operations, mark } = cache.takeOperations();
  await db.flush({ operations });
  cache.flushed(mark);
  t.same(await cache.get('Account', 'a'), { id: 'a', balance: 1n }, 'a written id is read from the database');
  t.equal(await cache.get('Account', 'b'), undefined);
  t.equal(db.reads, 2, 'both ids it saw written are read');
  t.equal(await cache.get('Account', 'c'), undefined);
  t.equal(db.reads, 2);
  cache.set('Account', 'd', { id: 'd', balance: 2n }, 2);
  cache.discard();
  t.equal(await cache.get('Account', 'd'), undefined, 'an id of a discarded block is read again, and is not there');
  t.equal(db.reads, 3);
  db.rows.set('Token', new Map([['t', { id: 't' }]]));
  t.same(await cache.get('Token', 't'), { id: 't' }, 'a type not named fresh is always read');
});

t.test('fresh entity types past the ids budget: reads go to the database again', async (t) => {
  const db = memoryStore();
  const cache = createStoreCache(db, { queryLimit: 100, getCacheSize: 0, freshEntities: ['Account'], knownIdsBudget: 2 });
  for (const id of ['a', 'b', 'c']) cache.set('Account', id, { id, balance: 0n }, 1);
  await db.flush(cache.takeOperations());
  t.equal(await cache.get('Account', 'z'), undefined);
  t.equal(db.reads, 1);
});

t.test('fresh entity types the mappings never read keep no ids past the cap, unless the sandbox says it reads them', async (t) => {
  const db = memoryStore();
  const cache = createStoreCache(db, { queryLimit: 100, getCacheSize: 0, freshEntities: ['Account', 'Transfer'] });
  cache.markRead('Account');
  for (let i = 0; i <= UNASKED_IDS_CAP; i++) {
    cache.set('Account', `a${i}`, { id: `a${i}`, balance: 0n }, 1);
    cache.set('Transfer', `t${i}`, { id: `t${i}` }, 1);
  }
  await db.flush(cache.takeOperations());
  t.equal(await cache.get('Account', 'z'), undefined);
  t.equal(db.reads, 0, 'the type the sandbox reads is still known: absent without a read');
  t.equal(await cache.get('Transfer', 'z'), undefined);
  t.equal(db.reads, 1, 'the type never read lost its ids at the cap: a read');
});

t.test('takeOperations up to a height: the writes of later blocks (a run writes ahead) stay for the next take, and stay visible', async (t) => {
  const db = memoryStore();
  const cache = createStoreCache(db, { queryLimit: 100, getCacheSize: 0 });
  cache.set('E', 'a', { id: 'a', v: 1n }, 10);
  cache.set('E', 'b', { id: 'b', v: 1n }, 10);
  cache.set('E', 'a', { id: 'a', v: 2n }, 11);
  cache.set('E', 'c', { id: 'c', v: 1n }, 12);
  const first = cache.takeOperations(10);
  t.same(
    first.operations.map((o) => [o.id, o.height]),
    [
      ['a', 10],
      ['b', 10],
    ],
  );
  await db.flush({ operations: first.operations });
  cache.flushed(first.mark);
  t.same(await cache.get('E', 'a'), { id: 'a', v: 2n }, "block 11's write is still what a read sees");
  t.same(await cache.get('E', 'c'), { id: 'c', v: 1n });
  t.equal(cache.pendingCount(), 2, "only block 10's writes left memory");
  const rest = cache.takeOperations(12);
  t.same(
    rest.operations.map((o) => [o.id, o.height]),
    [
      ['a', 11],
      ['c', 12],
    ],
  );
  t.same(cache.takeOperations().operations, []);
});
