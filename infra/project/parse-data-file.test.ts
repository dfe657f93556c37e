import t from 'tap';
import { ValidationError } from '../../domain/errors.ts';
import { parseJsonText, parseJsonValue, parseYamlText } from './parse-data-file.ts';

const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.message;
    throw err;
  }
  throw new Error('no error');
};

t.test('YAML anchors, aliases and merge keys as manifests use them still read', async (t) => {
  const text = `
handlers: &handlers
  - { kind: ethereum/LogHandler, handler: a }
base: &base { kind: ethereum/Runtime, startBlock: 1 }
dataSources:
${Array.from({ length: 50 }, () => '  - { <<: *base, mapping: { handlers: *handlers } }').join('\n')}
`;
  const { value } = parseYamlText(text, 'project.yaml');
  const ds = (value as { dataSources: { kind: string; mapping: { handlers: unknown[] } }[] }).dataSources;
  t.equal(ds.length, 50);
  t.equal(ds[49]!.kind, 'ethereum/Runtime');
  t.same(ds[49]!.mapping.handlers, [{ kind: 'ethereum/LogHandler', handler: 'a' }]);
});

t.test('a YAML alias bomb is refused, naming the file', async (t) => {
  const lines = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
  t.match(
    message(() => parseYamlText(lines.join('\n'), '/p/project.yaml')),
    /^\/p\/project\.yaml is invalid:\n {2}- project\.yaml: its aliases \(\*name\) expand to too much data/,
  );
});

t.test('an alias inside its own anchor is refused', async (t) => {
  t.match(
    message(() => parseYamlText('a: &a [1, *a]\n', 'c.yml')),
    /c\.yml: a value contains itself/,
  );
});

t.test('nesting past 100 levels is refused before the recursive parsers run: flow and block YAML, JSON', async (t) => {
  const deep = `x: ${'['.repeat(5000)}${']'.repeat(5000)}`;
  t.match(
    message(() => parseYamlText(deep, 'p.yaml')),
    /p\.yaml: nested more than 100 levels deep/,
  );
  const block = `x:\n${Array.from({ length: 150 }, (_, i) => `${'  '.repeat(i + 1)}k:`).join('\n')} 1\n`;
  t.match(
    message(() => parseYamlText(block, 'p.yaml')),
    /nested more than 100 levels deep/,
  );
  t.doesNotThrow(() => parseYamlText(`x:\n${Array.from({ length: 90 }, (_, i) => `${'  '.repeat(i + 1)}k:`).join('\n')} 1\n`, 'p.yaml'));
  // aliases can stack shallow anchors into a deep value
  const stacked = ['a0: &a0 [[[[[[[[[[1]]]]]]]]]]'];
  for (let i = 1; i < 12; i++) stacked.push(`a${i}: &a${i} [[[[[[[[[[*a${i - 1}]]]]]]]]]]`);
  t.match(
    message(() => parseYamlText(stacked.join('\n'), 'p.yaml')),
    /nested more than 100 levels deep/,
  );
  t.match(
    message(() => parseJsonText(`{"x": ${'['.repeat(5000)}${']'.repeat(5000)}}`, 'p.json')),
    /p\.json: nested more than 100 levels deep/,
  );
  t.match(
    message(() => parseJsonValue(`${'['.repeat(100_000)}x`, 'a.json')),
    /a\.json: /,
    'a deep JSON syntax error is reported without recursing',
  );
});

t.test('files past the size limits are refused', async (t) => {
  t.match(
    message(() => parseYamlText(`x: "${'a'.repeat(5 * 1024 * 1024)}"`, 'p.yaml')),
    /p\.yaml: the file has \d+ bytes; idx reads at most 4194304 bytes/,
  );
  t.match(
    message(() => parseJsonValue(`"${'a'.repeat(100)}"`, 'a.json', 50)),
    /a\.json: the file has 102 bytes; idx reads at most 50 bytes/,
  );
});
