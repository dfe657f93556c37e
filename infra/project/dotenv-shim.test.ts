import { join } from 'node:path';
import t from 'tap';
import { createDotenvShim, parseEnvFile } from './dotenv-shim.ts';

t.test('parseEnvFile reads KEY=VALUE lines', async (t) => {
  const text = [
    '# comment',
    'CHAIN_ID=1',
    'export ENDPOINT = https://a.example,https://b.example  # trailing comment',
    'QUOTED="a b # not a comment"',
    "SINGLE='x=y'",
    'MULTI="line1\\nline2"',
    'EMPTY=',
    'not a line',
    '',
  ].join('\n');
  t.same(parseEnvFile(text), {
    CHAIN_ID: '1',
    ENDPOINT: 'https://a.example,https://b.example',
    QUOTED: 'a b # not a comment',
    SINGLE: 'x=y',
    MULTI: 'line1\nline2',
    EMPTY: '',
  });
});

t.test('config loads into the given env without overriding, like dotenv', async (t) => {
  const dir = t.testdir({ '.env': 'A=from-file\nB=from-file\n', 'other.env': 'C=3\n' });
  const env: Record<string, string | undefined> = { A: 'preset' };
  const dotenv = createDotenvShim(env, dir);
  t.same(dotenv.config(), { parsed: { A: 'from-file', B: 'from-file' } });
  t.same(env, { A: 'preset', B: 'from-file' });
  dotenv.config({ path: 'other.env' });
  t.equal(env.C, '3', 'a relative path is taken from the project folder');
  dotenv.config({ path: join(dir, '.env'), override: true });
  t.equal(env.A, 'from-file');
  const missing = dotenv.config({ path: join(dir, '.env.staging') });
  t.match(missing, { parsed: {}, error: { code: 'ENOENT' } }, 'a missing file is reported, not thrown');
});
