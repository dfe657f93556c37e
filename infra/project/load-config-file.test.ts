import { join } from 'node:path';
import t from 'tap';
import type { ValidationError } from '../../domain/errors.ts';
import { loadNodeConfigFile } from './load-config-file.ts';

const problems = (err: unknown) => (err as ValidationError).problems.map((p) => `${p.path}${p.line ? `:${p.line}:${p.column}` : ''}: ${p.message}`);

t.test('reads idx, idxName and batchSize; idx is relative to the config file', async (t) => {
  const dir = t.testdir({
    'idx-config.yml': 'idx: .\nidxName: erc20\nbatchSize: 50\n',
    'nested.yaml': 'idx: ./projects/erc20\n',
    'config.json': '{ "idx": "..", "batchSize": 10 }',
  });
  t.same(loadNodeConfigFile(join(dir, 'idx-config.yml')), { idx: dir, idxName: 'erc20', batchSize: 50 });
  t.same(loadNodeConfigFile(join(dir, 'nested.yaml')), { idx: join(dir, 'projects', 'erc20') });
  t.same(loadNodeConfigFile(join(dir, 'config.json')), { idx: join(dir, '..'), batchSize: 10 });
});

t.test('lists every problem, with line and column', async (t) => {
  const dir = t.testdir({
    'unknown.yml': 'idx: .\nnetworkEndpoint: http://x\ndbSchema: app\n',
    'types.yml': 'idx: 5\nidxName: ""\nbatchSize: 0\n',
    'missing.yml': 'idxName: app\n',
    'float.json': '{\n  "idx": ".",\n  "batchSize": 2.5\n}',
    'list.yml': '- idx: .\n',
    'empty.yml': '',
  });
  t.same(problems(t.throws(() => loadNodeConfigFile(join(dir, 'unknown.yml')))), [
    'networkEndpoint:2:18: unknown key; the config file takes idx, idxName, batchSize (give other settings as flags)',
    'dbSchema:3:11: unknown key; the config file takes idx, idxName, batchSize (give other settings as flags)',
  ]);
  t.same(problems(t.throws(() => loadNodeConfigFile(join(dir, 'types.yml')))), [
    'idx:1:6: expected the project folder as a string ("." is the folder of this file)',
    'idxName:2:10: expected a non-empty string',
    'batchSize:3:12: expected a positive integer',
  ]);
  t.same(problems(t.throws(() => loadNodeConfigFile(join(dir, 'missing.yml')))), ['idx:1:1: required: the project folder ("." is the folder of this file)']);
  t.same(problems(t.throws(() => loadNodeConfigFile(join(dir, 'float.json')))), ['batchSize:3:16: expected a positive integer']);
  t.same(problems(t.throws(() => loadNodeConfigFile(join(dir, 'list.yml')))), ['config:1:1: expected an object with idx, idxName, batchSize']);
  t.same(problems(t.throws(() => loadNodeConfigFile(join(dir, 'empty.yml')))), ['config: expected an object with idx, idxName, batchSize']);
  const err = t.throws(() => loadNodeConfigFile(join(dir, 'unknown.yml'))) as ValidationError;
  t.equal(err.code, 'VALIDATION_FAILED');
  t.match(err.message, `${join(dir, 'unknown.yml')} is invalid:`);
});

t.test('wrong extension, missing file, bad syntax', async (t) => {
  const dir = t.testdir({ 'config.toml': 'idx = "."', config: 'idx: .', 'bad.yml': 'idx: [.\n', 'bad.json': '{ "idx": . }' });
  t.throws(() => loadNodeConfigFile(join(dir, 'config.toml')), {
    code: 'CONFIG_UNSUPPORTED_FORMAT',
    message: `config file ${join(dir, 'config.toml')}: expected a .yml, .yaml or .json file, got ".toml"`,
  });
  t.throws(() => loadNodeConfigFile(join(dir, 'config')), { code: 'CONFIG_UNSUPPORTED_FORMAT', message: /got no extension$/ });
  t.throws(() => loadNodeConfigFile(join(dir, 'nope.yml')), {
    code: 'CONFIG_NOT_FOUND',
    message: new RegExp(`^config file ${join(dir, 'nope.yml')} cannot be read`),
  });
  t.same(problems(t.throws(() => loadNodeConfigFile(join(dir, 'bad.json')))), ['bad.json:1:10: unexpected ".", expected a value']);
  t.match(problems(t.throws(() => loadNodeConfigFile(join(dir, 'bad.yml'))))[0], /^bad\.yml:\d+:\d+: /);
});
