import t from 'tap';
import { createEndpointPool } from './endpoint-pool.ts';

t.test('round-robin over healthy endpoints; failed ones cool down, longer each time, then return', async (t) => {
  let now = 0;
  const pool = createEndpointPool([{ url: 'http://a' }, { url: 'http://b' }, { url: 'http://c' }], { cooldownMs: 100, maxCooldownMs: 250, now: () => now });
  const [a, b, c] = pool.endpoints as [never, never, never];
  const none = new Set<never>();
  t.same([pool.pick(none), pool.pick(none), pool.pick(none), pool.pick(none)], [a, b, c, a]);

  pool.markFailed(b);
  t.same([pool.pick(none), pool.pick(none), pool.pick(none)], [c, a, c], 'b skipped while cooling');
  now = 100;
  t.ok([pool.pick(none), pool.pick(none), pool.pick(none)].includes(b), 'b back after its cooldown');

  pool.markFailed(b);
  pool.markFailed(b);
  now = 250;
  t.notOk([pool.pick(none), pool.pick(none)].includes(b), 'second failure in a row: 200 ms');
  now = 300;
  pool.markFailed(b);
  now = 549;
  t.notOk([pool.pick(none), pool.pick(none)].includes(b), 'capped at maxCooldownMs (250)');
  now = 550;
  t.ok([pool.pick(none), pool.pick(none), pool.pick(none)].includes(b));
  pool.markOk(b);
});

t.test('when all are cooling, the one that recovers first; exclusions are honoured', async (t) => {
  let now = 0;
  const pool = createEndpointPool([{ url: 'http://a' }, { url: 'http://b' }], { cooldownMs: 100, maxCooldownMs: 1000, now: () => now });
  const [a, b] = pool.endpoints as [never, never];
  pool.markFailed(a);
  now = 10;
  pool.markFailed(b);
  t.equal(pool.pick(new Set()), a);
  t.equal(pool.pick(new Set([a])), b);
  t.equal(pool.pick(new Set([a, b])), undefined);
  t.same(
    pool.endpoints.map((e) => e.label),
    ['http://a', 'http://b'],
  );
});
