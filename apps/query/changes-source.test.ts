import t from 'tap';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import type { EntityData, StoreOperation } from '../../domain/entities/entity-store.ts';
import { createEntityStore } from '../../infra/postgres/create-entity-store.ts';
import { prepareProjectSchema } from '../../infra/postgres/prepare-project-schema.ts';
import { readStoredProject } from '../../infra/postgres/read-stored-project.ts';
import { createTestBackends } from '../../test/support/test-backends.ts';
import { ChangesSource, type Change, type ChangesArgs } from './changes-source.ts';
import { entityTables } from './entity-tables.ts';
import { createQueryContext } from './query-context.ts';

const backends = createTestBackends(t);

const SCHEMA = `
type Owner @entity { id: ID!, name: String! }
type Item @entity { id: ID!, n: Int!, owner: Owner, tag: String }
`;
const opts = (schema: string) => ({ schema, historical: true, timestampField: true, changesIndex: true });

interface Version {
  lo: number;
  hi: number;
  data: EntityData;
}

/** The versions the store should hold, kept by the same rules: a write closes the live version, a rewind undoes heights. */
class HistoryModel {
  readonly versions = new Map<string, Version[]>();

  live(key: string): Version | undefined {
    return this.versions.get(key)?.find((v) => v.hi === Infinity);
  }

  apply(op: StoreOperation): void {
    const key = `${op.entity}:${op.id}`;
    const live = this.live(key);
    if (live !== undefined) live.hi = op.height;
    if (op.op === 'set') {
      const list = this.versions.get(key) ?? [];
      list.push({ lo: op.height, hi: Infinity, data: op.data! });
      this.versions.set(key, list);
    }
  }

  rewind(height: number): void {
    for (const [key, list] of this.versions) {
      const kept = list.filter((v) => v.lo <= height);
      for (const v of kept) if (v.hi > height) v.hi = Infinity;
      this.versions.set(key, kept);
    }
  }

  /** the owner's name as of a height, for the relation filter */
  ownerName(id: unknown, height: number): string | undefined {
    return this.versions.get(`Owner:${id}`)?.find((v) => v.lo <= height && height < v.hi)?.data.name as string | undefined;
  }

  changes(entity: string, from: number, to: number, match: (data: EntityData, height: number) => boolean = () => true) {
    const out: { id: string; height: number; mutation: string; before?: EntityData; after?: EntityData }[] = [];
    for (const [key, list] of this.versions) {
      if (!key.startsWith(`${entity}:`)) continue;
      const id = key.slice(entity.length + 1);
      const heights = new Set([...list.map((v) => v.lo), ...list.filter((v) => v.hi !== Infinity).map((v) => v.hi)]);
      for (const h of heights) {
        if (h < from || h >= to) continue;
        const after = list.find((v) => v.lo === h)?.data;
        const before = list.find((v) => v.hi === h)?.data;
        if (!((after !== undefined && match(after, h)) || (before !== undefined && match(before, h - 1)))) continue;
        out.push({ id, height: h, mutation: before === undefined ? 'CREATE' : after === undefined ? 'DELETE' : 'UPDATE', before, after });
      }
    }
    return out.sort((a, b) => a.height - b.height || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/** a small deterministic generator */
function random(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor((x / 2147483648) * n);
  };
}

const shown = (c: Change) => ({
  id: c.id,
  height: c.height,
  mutation: c.mutation,
  ...(c.before === null ? {} : { before: { n: c.before.n, owner: c.before.owner_id, tag: c.before.tag } }),
  ...(c.after === null ? {} : { after: { n: c.after.n, owner: c.after.owner_id, tag: c.after.tag } }),
});
const modelShown = (c: ReturnType<HistoryModel['changes']>[number]) => ({
  id: c.id,
  height: c.height,
  mutation: c.mutation,
  ...(c.before === undefined ? {} : { before: { n: c.before.n, owner: c.before.ownerId, tag: c.before.tag } }),
  ...(c.after === undefined ? {} : { after: { n: c.after.n, owner: c.after.ownerId, tag: c.after.tag } }),
});

t.test('the changes between two heights are the versions a model of the history says, across rewinds, and a poller sees each once', async (t) => {
  await backends.each(t, async (t, { db, schema }) => {
    const model = parseSchema(SCHEMA);
    await prepareProjectSchema(db.kysely, model, opts(schema));
    const store = createEntityStore({ db: db.kysely, model, ...opts(schema) });
    await store.flush({ operations: [], metadata: { schema: model, lastProcessedHeight: 0 } });
    const history = new HistoryModel();
    const rnd = random(7);
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const owners = ['o1', 'o2', 'o3'];
    const UNFINAL = 4;

    let height = 0;
    /** the last final block: it only grows, as a chain's finality does */
    let finalized = 0;
    const unfinalizedBlocks = () => {
      const list = [];
      for (let h = finalized + 1; h <= height; h++) list.push({ blockHeight: h, blockHash: `0x${h}`, parentHash: `0x${h - 1}`, timestamp: 0 });
      return list;
    };
    /** writes `n` more blocks, the last UNFINAL of them not final */
    const write = async (n: number) => {
      const ops: StoreOperation[] = [];
      for (let i = 0; i < n; i++) {
        height++;
        for (const o of owners) if (rnd(6) === 0) ops.push({ entity: 'Owner', id: o, height, op: 'set', data: { id: o, name: `name${rnd(3)}` } });
        const touched = new Set<string>();
        for (let k = rnd(4); k > 0; k--) {
          const id = ids[rnd(ids.length)]!;
          if (touched.has(id)) continue;
          touched.add(id);
          if (history.live(`Item:${id}`) !== undefined && rnd(4) === 0) ops.push({ entity: 'Item', id, height, op: 'remove' });
          else
            ops.push({
              entity: 'Item',
              id,
              height,
              op: 'set',
              data: { id, n: rnd(10), ownerId: rnd(4) === 0 ? null : owners[rnd(3)]!, tag: rnd(3) === 0 ? null : `t${rnd(5)}` },
            });
        }
      }
      for (const op of ops) history.apply(op);
      finalized = Math.max(finalized, height - UNFINAL);
      await store.flush({ operations: ops, metadata: { lastProcessedHeight: height, unfinalizedBlocks: unfinalizedBlocks() } });
    };
    /** a fork replaces the last `n` blocks (never more than the unfinalized ones) */
    const fork = async (n: number) => {
      height -= Math.min(n, height - finalized);
      history.rewind(height);
      await store.rewind(height, { lastProcessedHeight: height, unfinalizedBlocks: unfinalizedBlocks() });
    };

    const tables = entityTables(await readStoredProject(db.kysely, schema));
    const item = tables.get('Item')!;
    const ctx = () =>
      createQueryContext({
        db: db.kysely,
        schema,
        tables,
        settings: { aggregate: true, unsafe: false, queryLimit: 100, queryTimeoutMs: 10000 },
        metadata: { chains: async () => [] },
      });
    /** every page of a window, `first` at a time */
    const all = async (args: ChangesArgs) => {
      const out: Change[] = [];
      let after: string | null = null;
      let to = -1;
      for (let pages = 0; pages < 500; pages++) {
        const src: ChangesSource = new ChangesSource(ctx(), item, { ...args, after });
        const page = await src.page();
        out.push(...page.changes);
        to = (await src.heights()).to;
        if (!page.hasNextPage) break;
        after = src.cursor(page.changes[page.changes.length - 1]!);
      }
      return { changes: out, to };
    };

    // a poller, from 0, taking every page each time and starting the next poll where the last ended
    const polled: Change[] = [];
    let next = 0;
    const poll = async () => {
      const { changes, to } = await all({ fromHeight: next, first: 3 });
      polled.push(...changes);
      next = to;
    };

    for (let round = 0; round < 12; round++) {
      await write(3 + rnd(4));
      await poll();
      if (round % 3 === 1) {
        await fork(1 + rnd(UNFINAL));
        await write(2 + rnd(3));
        await poll();
      }
    }
    t.ok(height > 40, `${height} blocks written, with forks`);
    const settled = height - UNFINAL;
    t.equal(next, settled + 1, 'the poller stopped at the last final block');
    const expected = history.changes('Item', 0, settled + 1);
    t.ok(expected.filter((c) => c.mutation === 'DELETE').length > 3 && expected.filter((c) => c.mutation === 'UPDATE').length > 10, 'every kind of change');
    t.same(polled.map(shown), expected.map(modelShown), 'the poller saw every final change once, and none a fork undid');

    // a window that starts past the final heights: no toHeight could be answered without claiming heights not final
    t.same(
      await new ChangesSource(ctx(), item, { fromHeight: settled + 1 }).heights(),
      { from: settled + 1, to: settled + 1 },
      'from just past the last final block: an empty window',
    );
    for (const fromHeight of [settled + 2, 2147483647])
      await t.rejects(
        new ChangesSource(ctx(), item, { fromHeight }).heights(),
        {
          extensions: { code: 'BAD_USER_INPUT' },
          message: `fromHeight ${fromHeight} is past the heights whose changes are final: the last is ${settled}; ask from at most ${settled + 1}`,
        },
        `fromHeight ${fromHeight}: refused`,
      );

    // windows, page sizes and filters against the model
    const windows: [number, number][] = [
      [0, height + 1],
      [5, 17],
      [settled - 3, settled + 1],
      [10, 10],
    ];
    for (const [from, to] of windows) {
      const want = history.changes('Item', from, Math.min(to, settled + 1)).map(modelShown);
      for (const first of [1, 4, 100]) {
        const got = await all({ fromHeight: from, toHeight: to, first });
        t.same(got.changes.map(shown), want, `[${from}, ${to}) in pages of ${first}`);
      }
      const count = await new ChangesSource(ctx(), item, { fromHeight: from, toHeight: to }).totalCount();
      t.equal(count, want.length, `[${from}, ${to}) totalCount`);
    }
    const filters: [string, ChangesArgs['filter'], (d: EntityData, h: number) => boolean][] = [
      ['n > 5', { n: { greaterThan: 5 } }, (d) => (d.n as number) > 5],
      ['tag is null', { tag: { isNull: true } }, (d) => d.tag === null],
      ['owner named name1 at that height', { owner: { name: { equalTo: 'name1' } } }, (d, h) => history.ownerName(d.ownerId, h) === 'name1'],
    ];
    for (const [label, filter, match] of filters) {
      const want = history.changes('Item', 0, settled + 1, match).map(modelShown);
      t.ok(want.length > 0, `${label}: some changes match`);
      t.same((await all({ fromHeight: 0, first: 5, filter })).changes.map(shown), want, `${label}: a change is in when its version before or after is`);
    }
  });
});
