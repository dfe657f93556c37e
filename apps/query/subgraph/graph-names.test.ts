import t from 'tap';
import { graphCamelCase, graphNames } from './graph-names.ts';

t.test("camelCase as graph-node's Inflector makes it", async (t) => {
  t.equal(graphCamelCase('Transfer'), 'transfer');
  t.equal(graphCamelCase('StarterEntity'), 'starterEntity');
  t.equal(graphCamelCase('ERC20Token'), 'erc20Token', 'a digit ends a word');
  t.equal(graphCamelCase('NFTOwner'), 'nftowner', 'an upper-case run is one word');
  t.equal(graphCamelCase('TokenNFT'), 'tokenNFT', 'each capital after the last small letter starts a word');
  t.equal(graphCamelCase('Token_transfer'), 'tokenTransfer', 'a separator ends a word');
});

t.test('single, collection and input names', async (t) => {
  t.same(graphNames('Transfer'), { type: 'Transfer', single: 'transfer', collection: 'transfers', filter: 'Transfer_filter', orderBy: 'Transfer_orderBy' });
  t.equal(graphNames('StarterEntity').collection, 'starterEntities');
  t.equal(graphNames('Person').collection, 'people');
  t.equal(graphNames('Sheep').collection, 'sheep_collection', 'a plural that is the singular gets _collection');
  t.equal(graphNames('ERC20Token').collection, 'erc20Tokens');
});
