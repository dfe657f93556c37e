import t from 'tap';
import { heapGrowingFlag } from './heap-growing-flag.ts';

t.test("a heap in proportion to its live data, tighter beside the embedded database, and never over the user's own value", async (t) => {
  t.equal(heapGrowingFlag({}, []), '--heap-growing-percent=30', 'embedded (no DB_HOST)');
  t.equal(heapGrowingFlag({ DB_HOST: 'db' }, []), '--heap-growing-percent=100', 'PostgreSQL: 2×, not up to 4× as V8 would');
  t.equal(heapGrowingFlag({ DB_HOST: 'db' }, ['--heap-growing-percent=80']), undefined, 'PostgreSQL: a value given is kept');
  t.equal(heapGrowingFlag({}, ['--heap-growing-percent=80']), undefined, 'given on the command line');
  t.equal(heapGrowingFlag({ NODE_OPTIONS: '--heap_growing_percent=10' }, []), undefined, 'given in NODE_OPTIONS');
  t.equal(heapGrowingFlag({ NODE_OPTIONS: '--max-old-space-size=512' }, ['--no-node-snapshot']), '--heap-growing-percent=30', 'other flags do not count');
});
