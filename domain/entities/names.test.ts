import t from 'tap';
import { columnName, enumTypeName, snakeCase, tableName } from './names.ts';

t.test('entity names become SubQuery table names', async (t) => {
  t.equal(tableName('StarterEntity'), 'starter_entities');
  t.equal(tableName('Transfer'), 'transfers');
  t.equal(tableName('Account'), 'accounts');
  t.equal(tableName('DailyPoolStats'), 'daily_pool_stats');
  t.equal(tableName('Person'), 'people');
  t.equal(tableName('ERC20Token'), 'erc20_tokens');
});

t.test('field names become snake_case columns; relations get _id', async (t) => {
  t.equal(columnName('blockHeight'), 'block_height');
  t.equal(columnName('id'), 'id');
  t.equal(columnName('owner', true), 'owner_id');
  t.equal(columnName('tokenID'), 'token_id');
  t.equal(snakeCase('contractAddress'), 'contract_address');
  t.equal(enumTypeName('TransferKind'), 'transfer_kind');
});
