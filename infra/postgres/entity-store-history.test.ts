import fc from 'fast-check';
import t from 'tap';
import type { EntityData, StoreOperation } from '../../domain/entities/entity-store.ts';
import { createEntityStore } from './create-entity-store.ts';
import { prepareProjectSchema } from './prepare-project-schema.ts';
import { execute } from './sql.ts';
import { createTestBackends } from '../../test/support/test-backends.ts';
import { counterModel } from '../../test/support/test-models.ts';

/**
 * Property: whatever the writes, batch splits and rewinds, the store answers at every height what
 * an in-memory history of the same writes answers, and no two versions of an id overlap.
 */

const backends = createTestBackends(t);
const IDS = ['a', 'b', 'c', 'd', 'e'];

type Write = { id: string; value: number | null };
/** A flush: consecutive blocks, each with its writes (value null = remove). */
type FlushStep = { kind: 'flush'; sameBlock: boolean; blocks: { gap: number; writes: Write[] }[] };
type RewindStep = { kind: 'rewind'; back: number };
type Step = FlushStep | RewindStep;

const writeArb: fc.Arbitrary<Write> = fc.record({ id: fc.constantFrom(...IDS), value: fc.option(fc.integer({ min: 0, max: 99 }), { freq: 4 }) });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('flush' as const),
      // continue the last flushed block, as when a block's writes are flushed in two parts
      sameBlock: fc.boolean(),
      blocks: fc.array(fc.record({ gap: fc.integer({ min: 1, max: 3 }), writes: fc.array(writeArb, { maxLength: 6 }) }), { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), back: fc.integer({ min: 0, max: 8 }) }) },
);

/** The history as a list of writes by height; a rewind forgets those above the height. */
class Model {
  events: { height: number; id: string; value: number | null }[] = [];
  valueAt(id: string, height: number): number | undefined {
    let v: number | null | undefined;
    for (const e of this.events) if (e.id === id && e.height <= height) v = e.value;
    return v === null || v === undefined ? undefined : v;
  }
}

t.test('random writes, batch splits and rewinds agree with an in-memory history', (t) =>
  backends.each(t, async (t, b) => {
    const model = counterModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: false });
    const table = `"${b.schema}".counters`;
    let runs = 0;
    let checks = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 10 }), fc.integer({ min: 0, max: 2 ** 31 }), async (steps, seed) => {
        runs++;
        await execute(b.db.kysely, `truncate ${table}, "${b.schema}"._metadata, "${b.schema}"._poi`);
        const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: false });
        const mem = new Model();
        let height = 0; // the last block written or rewound to
        let rng = seed;
        const random = (n: number) => ((rng = (rng * 1103515245 + 12345) % 2 ** 31), rng % n);
        for (const step of steps) {
          if (step.kind === 'rewind') {
            const to = Math.max(0, height - step.back);
            await store.rewind(to);
            mem.events = mem.events.filter((e) => e.height <= to);
            height = to;
          } else {
            const ops: StoreOperation[] = [];
            let h = step.sameBlock && height > 0 ? height : height + step.blocks[0]!.gap;
            step.blocks.forEach((block, i) => {
              if (i > 0) h += block.gap;
              for (const w of block.writes) {
                const data: EntityData = { id: w.id, value: w.value ?? 0, label: `${w.id}@${h}`, total: BigInt(h) * 10n ** 20n };
                ops.push(
                  w.value === null
                    ? { entity: 'Counter', id: w.id, height: h, op: 'remove' }
                    : { entity: 'Counter', id: w.id, height: h, op: 'set', data: { ...data, value: w.value } },
                );
                mem.events.push({ height: h, id: w.id, value: w.value });
              }
            });
            await store.flush({ operations: ops, metadata: { lastProcessedHeight: h } });
            height = h;
          }

          // Every version, to check ranges and to answer every height at once.
          const rows = await execute<{ id: string; lo: string; hi: string | null; value: number; empty: boolean }>(
            b.db.kysely,
            `select id, lower(__block_range)::text as lo, upper(__block_range)::text as hi, value, isempty(__block_range) as empty from ${table}`,
          );
          const overlaps = await execute(
            b.db.kysely,
            `select 1 from ${table} x join ${table} y on x.id = y.id and x.ctid <> y.ctid and x.__block_range && y.__block_range limit 1`,
          );
          if (overlaps.length > 0) throw new Error(`overlapping versions after ${JSON.stringify(step)}`);
          if (rows.some((r) => r.empty)) throw new Error('an empty range was left');
          const top = height + 2;
          for (const id of IDS) {
            for (let at = 0; at <= top; at++) {
              const row = rows.find((r) => r.id === id && Number(r.lo) <= at && (r.hi === null || at < Number(r.hi)));
              const expected = mem.valueAt(id, at);
              if (row?.value !== expected) throw new Error(`${id} at ${at}: store has ${row?.value}, history says ${expected}`);
              checks++;
            }
          }
          // The store's own reads, on a sample: at a height, and live.
          for (let k = 0; k < 3; k++) {
            const id = IDS[random(IDS.length)]!;
            const at = random(top + 1);
            const got = (await store.get('Counter', id, at))?.value;
            if (got !== mem.valueAt(id, at)) throw new Error(`get(${id}, ${at}) = ${got}, history says ${mem.valueAt(id, at)}`);
          }
          const live = (await store.getByFields('Counter', [])).map((e) => `${e.id}=${e.value}`);
          const expectedLive = IDS.filter((id) => mem.valueAt(id, Infinity) !== undefined).map((id) => `${id}=${mem.valueAt(id, Infinity)}`);
          if (live.join() !== expectedLive.join()) throw new Error(`live rows ${live} but history says ${expectedLive}`);
          if ((await store.getMetadata('lastProcessedHeight')) !== height) throw new Error('lastProcessedHeight lags');
        }
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 40) },
    );
    t.pass(`${runs} histories, ${checks} (id, height) answers compared`);
  }),
);
