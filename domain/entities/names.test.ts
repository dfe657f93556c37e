import t from 'tap';
import { columnName, enumTypeName, notifyChannel, snakeCase, tableName } from './names.ts';

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

t.test('notifyChannel: schema.table, shortened with a hash past 63 bytes', async (t) => {
  t.equal(notifyChannel('erc20', 'transfers'), 'erc20.transfers');
  const long = notifyChannel('a_rather_long_project_schema_name_for_tests', 'starter_entities_with_long_names');
  t.ok(new TextEncoder().encode(long).length <= 63);
  t.not(long, notifyChannel('a_rather_long_project_schema_name_for_tests', 'starter_entities_with_long_namez'));
});
