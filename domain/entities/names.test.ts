import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { columnName, enumTypeName, notifyChannel, snakeCase, tableName, underscore } from './names.ts';

/**
 * SubQuery's names for every entity and field name of the public starters' and dictionaries'
 * schemas (SubQuery's Substrate, Ethereum and Cosmos starter repositories and its dictionaries),
 * plus edge cases, as sequelize's own `Utils` (inflection 1.13.4, installed with @subql/node)
 * gave them: tables `underscore(pluralize(entity))`, columns `underscore(field)`.
 */
const fixture = JSON.parse(readFileSync(new URL('./fixtures/subquery-names.json', import.meta.url), 'utf8')) as {
  tables: Record<string, string>;
  columns: Record<string, string>;
};

t.test('entity names become the tables SubQuery makes', async (t) => {
  t.equal(tableName('StarterEntity'), 'starter_entities');
  t.equal(tableName('Transfer'), 'transfers');
  t.equal(tableName('DailyPoolStats'), 'daily_pool_stats');
  t.equal(tableName('Person'), 'people');
  t.equal(tableName('NewTTL'), 'new_t_t_ls');
  t.equal(tableName('ERC20Token'), 'e_r_c20_tokens');
  t.equal(tableName('Metadata'), 'metadata', 'a name already plural stays');
  t.equal(tableName('Sheep'), 'sheep', 'an uncountable word stays');
  const wrong = Object.entries(fixture.tables).filter(([name, table]) => tableName(name) !== table);
  t.same(
    wrong.map(([name, table]) => `${name}: ${tableName(name)}, SubQuery ${table}`),
    [],
    `all ${Object.keys(fixture.tables).length} names`,
  );
});

t.test('field names become the columns SubQuery makes; relations get _id', async (t) => {
  t.equal(columnName('blockHeight'), 'block_height');
  t.equal(columnName('id'), 'id');
  t.equal(columnName('owner', true), 'owner_id');
  t.equal(columnName('ownerNFT', true), 'owner_n_f_t_id');
  t.equal(columnName('tokenID'), 'token_i_d');
  t.equal(columnName('priceETH'), 'price_e_t_h');
  t.equal(columnName('amount0In'), 'amount0_in', 'digits stay with the word before them');
  t.equal(columnName('already_snake'), 'already_snake');
  t.equal(columnName('_hidden'), 'hidden', 'one leading underscore is dropped, as sequelize drops it');
  t.equal(underscore('X'), 'x');
  const wrong = Object.entries(fixture.columns).filter(([name, column]) => columnName(name) !== column);
  t.same(
    wrong.map(([name, column]) => `${name}: ${columnName(name)}, SubQuery ${column}`),
    [],
    `all ${Object.keys(fixture.columns).length} names`,
  );
});

t.test('enum types keep readable names', async (t) => {
  t.equal(snakeCase('contractAddress'), 'contract_address');
  t.equal(enumTypeName('TransferKind'), 'transfer_kind');
});

// The fixture was made with sequelize's own functions; where @subql/node is installed (the
// Substrate bench installs it), every rule-shaped name is checked against them again, live.
const subqlUtils = join(homedir(), '.cache', 'idx-bench', 'subql-node-6.4.6', 'node_modules', '@subql', 'x-sequelize', 'lib', 'utils.js');
t.test(
  'the same as sequelize itself, on words that exercise each rule',
  { skip: !existsSync(subqlUtils) && `@subql/node is not installed (${subqlUtils})` },
  async (t) => {
    const utils = createRequire(import.meta.url)(subqlUtils) as { pluralize(s: string): string; underscoredIf(s: string, c: boolean): string };
    const stems = ['Person', 'Child', 'Ox', 'Axis', 'Virus', 'Status', 'Bonus', 'Bus', 'Tomato', 'Medium', 'Basis', 'Knife', 'Wolf', 'Archive'];
    const more = ['Fly', 'Query', 'Matrix', 'Index', 'Box', 'Church', 'Mouse', 'Foot', 'Tooth', 'Goose', 'Quiz', 'Whereas', 'Criterion', 'Genus'];
    const words = [...stems, ...more].flatMap((w) => [w, w.toUpperCase(), `My${w}`, `${w}s`, `${w}es`, `X${w.toLowerCase()}`, `${w}2`, `Sheep${w}`]);
    const wrong: string[] = [];
    for (const w of [...words, 'Sheep', 'News', 'Money', 'Data', 'A', 'AB', 'a1B2', '_x', '__y', 'z_Z']) {
      const table = utils.underscoredIf(utils.pluralize(w), true);
      const column = utils.underscoredIf(w, true);
      if (tableName(w) !== table) wrong.push(`table of ${w}: ${tableName(w)}, sequelize ${table}`);
      if (columnName(w) !== column) wrong.push(`column of ${w}: ${columnName(w)}, sequelize ${column}`);
    }
    t.same(wrong, [], `${words.length + 10} names`);
  },
);

t.test('notifyChannel: schema.table, shortened with a hash past 63 bytes', async (t) => {
  t.equal(notifyChannel('erc20', 'transfers'), 'erc20.transfers');
  const long = notifyChannel('a_rather_long_project_schema_name_for_tests', 'starter_entities_with_long_names');
  t.ok(new TextEncoder().encode(long).length <= 63);
  t.not(long, notifyChannel('a_rather_long_project_schema_name_for_tests', 'starter_entities_with_long_namez'));
});
