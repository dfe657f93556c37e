import t from 'tap';
import { cstring, message, simpleQuery } from './pg-wire.ts';
import { readerUnitRefusal, settingsSql } from './socket-session-sql.ts';

t.test("a client's startup settings as set_config, -c options included, what is not a setting left out", async (t) => {
  const params = new Map([
    ['user', 'idx'],
    ['statement_timeout', '5000'],
    ['options', '-c search_path=app --lock_timeout=1s'],
    ['application_name', 'x'],
  ]);
  t.equal(
    settingsSql(params),
    "select set_config('statement_timeout', '5000', false), set_config('search_path', 'app', false), set_config('lock_timeout', '1s', false)",
  );
  t.equal(settingsSql(new Map([['user', 'idx']])), '');
  t.equal(settingsSql(new Map([['x', "it's"]])), "select set_config('x', 'it''s', false)", 'quoted');
});

t.test("a reader's unit: one statement, read-only, no calls by OID", async (t) => {
  const sync = message('S');
  const execute = message('E', cstring(''), Buffer.from([0, 0, 0, 0]));
  t.equal(readerUnitRefusal(simpleQuery('select 1'), 'Q', 0), undefined);
  t.match(readerUnitRefusal(simpleQuery('set default_transaction_read_only = off'), 'Q', 0), /^this login is read-only: /);
  t.equal(readerUnitRefusal(Buffer.concat([execute, execute, sync]), 'S', 2), 'one statement at a time: several Execute messages before a Sync');
  t.equal(readerUnitRefusal(Buffer.concat([execute, message('H')]), 'H', 1), 'an Execute must be followed by a Sync');
  t.equal(readerUnitRefusal(message('F'), 'F', 0), 'function calls by OID are not accepted');
  const parse = message('P', cstring(''), cstring('set default_transaction_read_only = off'), Buffer.from([0, 0]));
  t.match(readerUnitRefusal(Buffer.concat([parse, sync]), 'S', 0), /^this login is read-only: /, 'a prepared statement is read too');
});
