import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import { subqlQueryDir } from '../../test/support/subql-packages.ts';
import { camelCase, constantCase, distinctPluralize, pluralize, singularize, upperCamelCase } from './postgraphile-inflection.ts';
import { plural, singular } from './postgraphile-plural.ts';

t.test("names as @subql/query 2.25 gives them (seen in its introspection of SubQuery's tables)", async (t) => {
  t.equal(camelCase('price_e_t_h'), 'priceETH');
  t.equal(camelCase('e_r_c20_balance'), 'eRC20Balance');
  t.equal(upperCamelCase(singularize('new_t_t_ls')), 'NewTTL');
  t.equal(upperCamelCase(`${pluralize('NewTTL')}-connection`), 'NewTtlsConnection');
  t.equal(upperCamelCase('new_t_t_ls-group-by'), 'NewTTLsGroupBy');
  t.equal(upperCamelCase(singularize('e_r_c20_tokens')), 'ERC20Token');
  t.equal(upperCamelCase(`${pluralize('ERC20Token')}-connection`), 'Erc20TokensConnection');
  t.equal(upperCamelCase(singularize('metadata')), 'Metadatum');
  t.equal(upperCamelCase(singularize('daily_pool_stats')), 'DailyPoolStat');
  t.equal(camelCase(distinctPluralize(singularize('metadata'))), 'metadata');
  t.equal(camelCase(distinctPluralize(singularize('n_f_ts'))), 'nFTs');
  t.equal(constantCase('price_e_t_h'), 'PRICE_E_T_H');
  t.equal(constantCase('e_r_c20_balance'), 'E_R_C20_BALANCE');
  t.equal(camelCase('table1s'), 'table1s', 'no capital S after a digit');
  t.equal(camelCase('_hidden_'), '_hidden_', 'leading and trailing underscores stay');
});

const dir = join(subqlQueryDir(), 'node_modules');
t.test(
  'the same as graphile-build and pluralize 7 themselves',
  { skip: !existsSync(join(dir, 'graphile-build')) && `@subql/query is not installed (${dir})` },
  async (t) => {
    const req = createRequire(join(dir, 'graphile-build', 'package.json'));
    const utils = req('graphile-build/node8plus/utils.js') as Record<'camelCase' | 'upperCamelCase' | 'constantCase', (s: string) => string>;
    const pluralize7 = req('pluralize') as { plural(s: string): string; singular(s: string): string };
    const names = [
      'new_t_t_ls',
      'e_r_c20_balance',
      'token1st_2ND',
      'a1b2',
      'ABC',
      'AbcDef',
      'abc def',
      '_x_',
      'x__y',
      'HTTPServer',
      'v2Pool',
      'pool_v2',
      'NewTTLS-connection',
    ];
    const wrong: string[] = [];
    const fix = (s: string) => s.replace(/[0-9]S(?=[A-Z]|$)/g, (m) => m.toLowerCase());
    for (const n of names) {
      if (camelCase(n) !== fix(utils.camelCase(n))) wrong.push(`camelCase ${n}: ${camelCase(n)}, graphile ${utils.camelCase(n)}`);
      if (upperCamelCase(n) !== fix(utils.upperCamelCase(n))) wrong.push(`upperCamelCase ${n}: ${upperCamelCase(n)}, graphile ${utils.upperCamelCase(n)}`);
      if (constantCase(n) !== utils.constantCase(n)) wrong.push(`constantCase ${n}: ${constantCase(n)}, graphile ${utils.constantCase(n)}`);
    }
    const words = [
      'person',
      'people',
      'child',
      'status',
      'analytics',
      'whiskey',
      'octopus',
      'metadata',
      'data',
      'criteria',
      'stats',
      'index',
      'matrix',
      'mouse',
      'knife',
      'wolf',
      'hero',
      'quiz',
      'ox',
      'sheep',
      'chinese',
      'fish',
      'news',
      'series',
      'staff',
      'media',
      'agenda',
      'thou',
      'men',
      'woman',
      'eaux',
      'bureau',
      'emu',
      'alias',
      'gas',
      'atlas',
      'iris',
      'movie',
      'abuse',
      'genus',
      'schema',
      'proof',
      'thief',
      'box',
      'buzz',
      'city',
      'day',
      'money',
      'zombie',
      'Transfer',
      'TTL',
      'L',
      'NFT',
      'Nft',
      'ttls',
      'ERC20',
      '2s',
      'café',
      'x',
    ];
    for (const w of words) {
      if (plural(w) !== pluralize7.plural(w)) wrong.push(`plural ${w}: ${plural(w)}, pluralize ${pluralize7.plural(w)}`);
      if (singular(w) !== pluralize7.singular(w)) wrong.push(`singular ${w}: ${singular(w)}, pluralize ${pluralize7.singular(w)}`);
    }
    t.same(wrong, [], `${names.length} names, ${words.length} words`);
  },
);
