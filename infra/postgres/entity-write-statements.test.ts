import t from 'tap';
import { CopyIn } from './copy-in.ts';
import { entityTableSql } from './entity-table-sql.ts';
import {
  COPY_CHUNK_ROWS,
  copyChunks,
  historicalFlushStatements,
  historicalStatements,
  JOIN_BY_INDEX,
  metadataStatement,
  plainStatements,
  poiStatement,
  rewindStatements,
} from './entity-write-statements.ts';
import { counterModel } from '../../test/support/test-models.ts';

const model = counterModel();
const table = entityTableSql(model.entities[0]!, model, 'app', true, undefined);

t.test('historical: close (or close and replace) the live versions, then COPY the new ones, built when asked', async (t) => {
  const plan = {
    closeIds: ['a', 'b'],
    closeHeights: [5, 6],
    inserts: [
      { id: 'a', data: { id: 'a', value: 1, label: 'x\ty', total: 10n }, lower: 5, upper: 6 },
      { id: 'b', data: { id: 'b', value: 2, label: null, total: null }, lower: 6, upper: null },
    ],
  };
  const [close, copy] = historicalStatements(table, plan as never, false);
  t.same(close, { sql: table.closeSql, params: ['{"a","b"}', '{5,6}'] });
  t.equal(copy!.sql, table.copySql);
  t.type(copy!.params, 'function', 'the rows are encoded only when the statement before is on the wire');
  const [copyIn] = (copy!.params as () => unknown[])();
  t.type(copyIn, CopyIn);
  t.same([...(copyIn as CopyIn).chunks], ['a\t1\tx\\ty\t10\t[5,6)\nb\t2\t\\N\t\\N\t[6,)\n']);
  t.equal(historicalStatements(table, plan as never, true)[0]!.sql, table.closeReplaceSql);
  t.same(
    historicalStatements(table, { ...plan, closeIds: [], closeHeights: [] } as never, false).map((s) => s.sql),
    [table.copySql],
    'nothing to close: the COPY alone',
  );
  const other = entityTableSql(model.entities[0]!, model, 'other', true, undefined);
  const flush = historicalFlushStatements(
    [
      { t: table, plan: plan as never },
      { t: other, plan: plan as never },
    ],
    false,
  );
  t.same(
    flush.map((s) => s.sql),
    [JOIN_BY_INDEX.sql, table.closeSql, table.copySql, other.closeSql, other.copySql],
    'the closes find live versions through the live index: set once, first, for the flush',
  );
  t.same(
    historicalFlushStatements([{ t: table, plan: { ...plan, closeIds: [], closeHeights: [] } as never }], false).map((s) => s.sql),
    [table.copySql],
    'no close in the flush: no setting',
  );
  t.same(historicalStatements(table, { closeIds: [], closeHeights: [], inserts: [] } as never, false), [], 'nothing to write, no statement');
});

t.test('COPY rows come in chunks of COPY_CHUNK_ROWS lines', async (t) => {
  const versions = Array.from({ length: COPY_CHUNK_ROWS + 1 }, (_, i) => ({ id: String(i), data: { id: String(i), value: i }, lower: 1, upper: null }));
  const chunks = [...copyChunks(table, versions as never)];
  t.equal(chunks.length, 2);
  t.equal(chunks[1], `${COPY_CHUNK_ROWS}\t${COPY_CHUNK_ROWS}\t\\N\t\\N\t[1,)\n`);
});

t.test('plain: delete the removed ids, upsert the rest from one text[] per column', async (t) => {
  const plan = { removes: ['gone'], upserts: [{ id: 'a', data: { id: 'a', value: 1, label: 'say "hi"', total: 2n } }] };
  t.same(plainStatements(table, plan as never), [
    { sql: table.deleteSql, params: ['{"gone"}'] },
    { sql: table.upsertSql, params: ['{"a"}', '{"1"}', '{"say \\"hi\\""}', '{"2"}'] },
  ]);
});

t.test('_metadata and _poi upserts; none when there is nothing to write', async (t) => {
  t.equal(metadataStatement('"app"."_metadata"', {}), undefined);
  t.same(metadataStatement('"app"."_metadata"', { a: 1, b: undefined }), {
    sql:
      'insert into "app"."_metadata" (key, value) select k, v::jsonb from unnest($1::text[], $2::text[]) as u(k, v) ' +
      'on conflict (key) do update set value = excluded.value',
    params: ['{"a","b"}', '{"1",NULL}'],
  });
  t.equal(poiStatement('"app"."_poi"', []), undefined);
  const poi = poiStatement('"app"."_poi"', [
    { id: 7, chainBlockHash: new Uint8Array([0xab]), hash: null, parentHash: new Uint8Array([1, 2]), operationHashRoot: null },
  ]);
  t.match(poi!.sql, /^insert into "app"\."_poi" \(id, chain_block_hash, hash, parent_hash, operation_hash_root\) /);
  t.same(poi!.params, ['{7}', '{"ab"}', '{NULL}', '{"0102"}', '{NULL}']);
});

t.test("a rewind: each table's later versions go and closed ones reopen (only the chain's own rows), then _poi and the metadata", async (t) => {
  const statements = rewindStatements([table], { poiTable: '"app"."_poi"', metadataTable: '"app"."_metadata"', ownRows: " and __chain = '1'" }, 9, {
    lastProcessedHeight: 9,
  });
  t.same(
    statements.map((s) => s.sql),
    [
      `delete from "app"."counters" where lower(__block_range) > $1 and __chain = '1'`,
      `update "app"."counters" set __block_range = int8range(lower(__block_range), null) where not upper_inf(__block_range) and upper(__block_range) > $1 and __chain = '1'`,
      'delete from "app"."_poi" where id > $1',
      metadataStatement('"app"."_metadata"', { lastProcessedHeight: 9 })!.sql,
    ],
  );
  t.same(statements[3]!.params, ['{"lastProcessedHeight"}', '{"9"}']);
});
