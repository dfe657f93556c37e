import t from 'tap';
import type { EntityModel } from '../../domain/entities/entity-model.ts';
import { csvHeader, csvLine, csvRow, csvValue } from './csv-format.ts';

const scalar = (name: string, s: string, extra = {}) =>
  ({ name, column: name, type: { kind: 'scalar', scalar: s }, nullable: true, list: false, itemNullable: false, ...extra }) as EntityModel['fields'][number];

t.test('cells are quoted only when they must be, quotes doubled', async (t) => {
  t.equal(csvLine(['a', 'b c', '']), 'a,b c,\n');
  t.equal(csvLine(['x,y', 'say "hi"', 'two\nlines', ' edge']), '"x,y","say ""hi""","two\nlines"," edge"\n');
});

t.test('dates become Unix timestamps; bigints, bytes, lists and JSON keep every digit', async (t) => {
  t.equal(csvValue(scalar('d', 'Date'), new Date(1_700_000_000_000)), '1700000000');
  t.equal(csvValue(scalar('d', 'Date'), new Date(1_700_000_000_250)), '1700000000.250');
  t.equal(csvValue(scalar('d', 'Date'), '2023-11-14T22:13:20.000Z'), '1700000000');
  t.equal(csvValue(scalar('n', 'BigInt'), 10n ** 30n), '1000000000000000000000000000000');
  t.equal(csvValue(scalar('b', 'Bytes'), new Uint8Array([1, 171])), '0x01ab');
  t.equal(csvValue(scalar('l', 'BigInt', { list: true }), [1n, 2n]), '["1","2"]');
  t.equal(csvValue(scalar('j', 'JSON'), { a: [1, 'x'] }), '{"a":[1,"x"]}');
  t.equal(csvValue(scalar('s', 'String'), null), '');
  t.equal(csvValue(scalar('f', 'Boolean'), false), 'false');
});

t.test('a row holds the stored fields by data key, no virtual fields, and __block_number', async (t) => {
  const entity: EntityModel = {
    name: 'Transfer',
    table: 'transfers',
    indexes: [],
    fields: [
      scalar('id', 'ID', { nullable: false }),
      { name: 'from', column: 'from_id', type: { kind: 'entity', entity: 'Account' }, nullable: false, list: false, itemNullable: false },
      { name: 'children', type: { kind: 'entity', entity: 'Transfer' }, derivedFrom: 'parent', nullable: true, list: true, itemNullable: false },
      scalar('at', 'Date'),
    ],
  };
  t.same(csvHeader(entity), ['id', 'fromId', 'at', '__block_number']);
  t.equal(csvRow(entity, { id: 't1', fromId: '0xab', at: new Date(12_000) }, 7), 't1,0xab,12,7\n');
});
