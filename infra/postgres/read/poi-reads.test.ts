import t from 'tap';
import { poiHashAt, poiHeightOfHash } from './poi-reads.ts';

t.test('a block by hash and a hash by height, from _poi', async (t) => {
  t.same(poiHeightOfHash('"app"."_poi"', 'ab01'), {
    text: `select id::text as id from "app"."_poi" where chain_block_hash = decode($1, 'hex') limit 1`,
    values: ['ab01'],
  });
  t.same(poiHashAt('"app"."_poi"', 12), {
    text: `select '0x' || encode(chain_block_hash, 'hex') as hash from "app"."_poi" where id = $1::int8`,
    values: ['12'],
  });
});
