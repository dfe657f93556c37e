import { join } from 'node:path';
import t from 'tap';
import type { ValidationError } from '../../domain/errors.ts';
import { loadConfigFile } from './load-config-file.ts';

const problems = (err: unknown) => (err as ValidationError).problems.map((p) => `${p.path}${p.line ? `:${p.line}:${p.column}` : ''}: ${p.message}`);

t.test('reads the keys in the order written, with where each is', async (t) => {
  const dir = t.testdir({
    'idx-config.yml': 'idx: .\nidxName: erc20\nbatch-size: 50\n',
    'config.json': '{ "idx": "..", "batchSize": 10 }',
  });
  t.same(loadConfigFile(join(dir, 'idx-config.yml')), {
    file: join(dir, 'idx-config.yml'),
    dir,
    entries: [
      { key: 'idx', value: '.', line: 1, column: 6 },
      { key: 'idxName', value: 'erc20', line: 2, column: 10 },
      { key: 'batch-size', value: 50, line: 3, column: 13 },
    ],
  });
  t.same(
    loadConfigFile(join(dir, 'config.json')).entries.map((e) => [e.key, e.value]),
    [
      ['idx', '..'],
      ['batchSize', 10],
    ],
  );
});

t.test('a file that is not an object of settings', async (t) => {
  const dir = t.testdir({ 'list.yml': '- idx: .\n', 'empty.yml': '' });
  t.same(problems(t.throws(() => loadConfigFile(join(dir, 'list.yml')))), ['config:1:1: expected an object of settings (idx: ., batchSize: 50, …)']);
  t.same(problems(t.throws(() => loadConfigFile(join(dir, 'empty.yml')))), ['config: expected an object of settings (idx: ., batchSize: 50, …)']);
  const err = t.throws(() => loadConfigFile(join(dir, 'list.yml'))) as ValidationError;
  t.equal(err.code, 'VALIDATION_FAILED');
  t.match(err.message, `${join(dir, 'list.yml')} is invalid:`);
});

t.test('wrong extension, missing file, bad syntax', async (t) => {
  const dir = t.testdir({ 'config.toml': 'idx = "."', config: 'idx: .', 'bad.yml': 'idx: [.\n', 'bad.json': '{ "idx": . }' });
  t.throws(() => loadConfigFile(join(dir, 'config.toml')), {
    code: 'CONFIG_UNSUPPORTED_FORMAT',
    message: `config file ${join(dir, 'config.toml')}: expected a .yml, .yaml or .json file, got ".toml"`,
  });
  t.throws(() => loadConfigFile(join(dir, 'config')), { code: 'CONFIG_UNSUPPORTED_FORMAT', message: /got no extension$/ });
  t.throws(() => loadConfigFile(join(dir, 'nope.yml')), {
    code: 'CONFIG_NOT_FOUND',
    message: new RegExp(`^config file ${join(dir, 'nope.yml')} cannot be read`),
  });
  t.same(problems(t.throws(() => loadConfigFile(join(dir, 'bad.json')))), ['bad.json:1:10: unexpected ".", expected a value']);
  t.match(problems(t.throws(() => loadConfigFile(join(dir, 'bad.yml'))))[0], /^bad\.yml:\d+:\d+: /);
});
