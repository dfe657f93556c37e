import t from 'tap';
import {
  afterReadyForQuery,
  cstring,
  dataRows,
  errorResponse,
  greeting,
  int32,
  message,
  parseStartup,
  readyForQuery,
  scanAnswer,
  simpleQuery,
} from './pg-wire.ts';

const dataRow = (...values: (string | null)[]) =>
  message('D', Buffer.from([0, values.length]), ...values.map((v) => (v === null ? int32(-1) : Buffer.concat([int32(Buffer.byteLength(v)), Buffer.from(v)]))));

t.test('messages: type, length (itself included), body', async (t) => {
  t.same([...readyForQuery('T')], [0x5a, 0, 0, 0, 5, 0x54]);
  t.same(simpleQuery('select 1'), Buffer.from('Q\0\0\0\x0dselect 1\0', 'latin1'));
  t.same(errorResponse('28P01', 'no'), Buffer.from('E\0\0\0\x1eSFATAL\0VFATAL\0C28P01\0Mno\0\0', 'latin1'));
  const hello = greeting({ version: '17.4', timeZone: 'UTC', pid: 7, secret: 9 }, { name: 'reader', readOnly: true });
  t.ok(hello.includes(Buffer.concat([cstring('default_transaction_read_only'), cstring('on')])), 'a reader is told its transactions are read-only');
  t.ok(hello.includes(Buffer.concat([cstring('is_superuser'), cstring('off')])));
  t.same(hello.subarray(-6), readyForQuery('I'));
});

t.test('a startup packet', async (t) => {
  t.same(
    parseStartup(Buffer.from('user\0idx\0database\0app\0\0')),
    new Map([
      ['user', 'idx'],
      ['database', 'app'],
    ]),
  );
});

t.test("a backend's answer: notifications left out, the last transaction state, whether a SET ran", async (t) => {
  const complete = (tag: string) => message('C', cstring(tag));
  const note = message('A', int32(1), cstring('ch'), cstring('hi'));
  const answer = Buffer.concat([complete('SET'), note, readyForQuery('T')]);
  t.same(scanAnswer(answer), { data: Buffer.concat([complete('SET'), readyForQuery('T')]), status: 'T', changedSettings: true });
  t.same(scanAnswer(Buffer.concat([complete('SELECT 1')])), { data: complete('SELECT 1'), status: undefined, changedSettings: false });
});

t.test('ReadyForQuery offsets and DataRow values', async (t) => {
  const answer = Buffer.concat([readyForQuery('I'), dataRow('on', null), readyForQuery('T')]);
  t.equal(afterReadyForQuery(answer, 1), 6);
  t.equal(afterReadyForQuery(answer, 3), answer.length, 'fewer than asked: the whole answer');
  t.same(dataRows(answer), [['on', null]]);
});
