import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readFileIfPresent } from './read-file-if-present.ts';

t.test('the text, undefined when missing, other failures thrown', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-read-if-present-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  t.equal(await readFileIfPresent(join(dir, 'none')), undefined);
  await writeFile(join(dir, 'a'), 'text');
  t.equal(await readFileIfPresent(join(dir, 'a')), 'text');
  await t.rejects(readFileIfPresent(dir), { code: 'EISDIR' });
});
