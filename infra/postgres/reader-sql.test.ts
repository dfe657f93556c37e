import t from 'tap';
import { readerRefusal } from './reader-sql.ts';

t.test('reading statements pass, whatever their strings, comments and quoted names hold', async (t) => {
  for (const sql of [
    'select 1',
    `select 'set_config; insert', "a;b" from t -- ; delete`,
    `select $tag$ ; set default_transaction_read_only = off $tag$, e'\\'; reset all', $1::int`,
    `/* /* nested ; */ drop */ select a$b$c from t`,
    `with x as (select 1) select * from x;`,
    `(select 1) union (select 2)`,
    'begin',
    'begin isolation level repeatable read, read only',
    `set search_path = "app"`,
    'listen "x.y"',
  ]) {
    t.equal(readerRefusal(sql), undefined, sql);
  }
});

t.test('what could write, or make the login writable, is refused, however it is spelt', async (t) => {
  for (const sql of [
    `select 1; select 2`,
    `select 'a''b'; update t set a = 1`,
    `select e'\\''; update t set a = 1 --'`,
    `insert into t values (1)`,
    `SeT "Default_Transaction_Read_Only" = off`,
    `select pg_catalog.set_config('x', 'y', false)`,
    `select 1.set_config('x', 'y', false)`,
    `begin read/**/write`,
    `reset all`,
    `discard all`,
    `do $$ begin end $$`,
    `call p()`,
    `copy t to '/x'`,
    `select * from U&"t"`,
    `set session authorization postgres`,
    `select ts_stat('select 1')`,
    `select 'unterminated`,
    `/* unterminated`,
    `set standard_conforming_strings = off`,
  ]) {
    t.ok(readerRefusal(sql), sql);
  }
});
