import t from 'tap';
import { entityTables, relationName, toManyFilterName } from './entity-tables.ts';
import { storedProjectOf } from '../../test/support/stored-project.ts';

// What @subql/query 2.25 names these, read from its introspection of the tables SubQuery's node made
// for the same schema (npm run bench -- layout compares the whole schema).
const tables = entityTables(
  storedProjectOf(`
  type NewTTL @entity { id: ID!, priceETH: BigInt, imageURI: String, ERC20Balance: BigInt, owner: ERC20Account }
  type ERC20Account @entity { id: ID!, ttls: [NewTTL] @derivedFrom(field: "owner") }
  type DailyPoolStats @entity { id: ID!, tvlUSD: Float }
  type Metadata @entity { id: ID!, value: String }
  type Sheep @entity { id: ID! }
`),
);

t.test("entity names are PostGraphile's, from the table's name", async (t) => {
  const n = tables.get('NewTTL')!.names;
  t.match(n, {
    type: 'NewTTL',
    single: 'newTTL',
    connection: 'newTTLs',
    connectionType: 'NewTtlsConnection',
    edgeType: 'NewTtlsEdge',
    orderBy: 'NewTtlsOrderBy',
    groupBy: 'NewTTLsGroupBy',
    having: 'NewTTLsHavingInput',
    filter: 'NewTTLFilter',
    distinct: 'new_t_t_ls_distinct_enum',
    aggregates: 'NewTTLAggregates',
    search: 'searchNewTTLs',
  });
  t.equal(n.havingOf('distinctCount'), 'NewTTLsHavingDistinctCountInput');
  t.equal(n.aggregatesOf('stddevSample'), 'NewTTLStddevSampleAggregates');
  t.match(tables.get('ERC20Account')!.names, {
    type: 'ERC20Account',
    single: 'eRC20Account',
    connection: 'eRC20Accounts',
    connectionType: 'Erc20AccountsConnection',
  });
  t.match(tables.get('DailyPoolStats')!.names, {
    type: 'DailyPoolStat',
    connection: 'dailyPoolStats',
    aggregates: 'DailyPoolStatAggregates',
    groupBy: 'DailyPoolStatsGroupBy',
  });
  t.match(tables.get('Metadata')!.names, { type: 'Metadatum', single: 'metadatum', connection: 'metadata', connectionType: 'MetadataConnection' });
  t.match(tables.get('Sheep')!.names, { type: 'Sheep', single: 'sheep', connection: 'sheeps', connectionType: 'SheepConnection' });
  t.equal(toManyFilterName(tables.get('ERC20Account')!, tables.get('NewTTL')!), 'Erc20AccountToManyNewTtlFilter');
});

t.test('fields are named after their columns, as PostGraphile names them', async (t) => {
  const t1 = tables.get('NewTTL')!;
  t.same(
    t1.columns.map((c) => [c.name, c.upper]),
    [
      ['id', 'ID'],
      ['priceETH', 'PRICE_E_T_H'],
      ['imageURI', 'IMAGE_U_R_I'],
      ['eRC20Balance', 'E_R_C20_BALANCE'],
      ['ownerId', 'OWNER_ID'],
    ],
  );
  t.same(
    t1.forward.map((r) => r.name),
    ['owner'],
  );
  t.equal(relationName('owner_n_f_t_id'), 'ownerNFT');
});
