import t from 'tap';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import { resolveColumns } from './column-codec.ts';

const model = parseSchema(`type Transfer @entity { id: ID! date: Date! }`);
const [date] = resolveColumns(model.entities[0]!, model, 'app');

t.test("a Date column's text is the date's ISO text, however often the same date comes", async (t) => {
  // a block's rows repeat its timestamp: the text is remembered by milliseconds, never by object
  const block = Date.UTC(2024, 1, 29, 12, 30, 15, 123);
  const seen = [block, block, block + 12_000, block, Date.UTC(-1, 0, 1), Date.UTC(275760, 8, 13), 0, -1, block + 12_000];
  for (const ms of seen) {
    t.equal(date!.encode(new Date(ms)), new Date(ms).toISOString(), `${ms} as a Date`);
    t.equal(date!.encode(ms), new Date(ms).toISOString(), `${ms} as a number`);
  }
  t.equal(date!.encode('2024-02-29T12:30:15.123+02:00'), '2024-02-29T10:30:15.123Z', 'a string with a zone');
  const later = new Date(block);
  t.equal(date!.encode(later), '2024-02-29T12:30:15.123Z');
  later.setTime(block + 1);
  t.equal(date!.encode(later), '2024-02-29T12:30:15.124Z', 'a Date changed after its first encoding gives its new time');
  t.throws(() => date!.encode(new Date(NaN)), /a Date/);
});
