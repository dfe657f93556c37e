import t from 'tap';
import { PING } from './ping.ts';

t.test('the health probe', async (t) => {
  t.same(PING, { text: 'select 1', values: [] });
});
