import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { writeWholeFile } from './write-whole-file.ts';

t.test('the file appears whole, replaces an older one whole, and leaves nothing beside it', async (t) => {
  const dir = t.testdir({});
  const file = join(dir, 'chain.json');
  await writeFile(file, '{"old":');
  const text = JSON.stringify({ pid: 1, log: 'x'.repeat(1_000_000) });
  const write = writeWholeFile(file, text);
  // until the rename, a reader sees the old file, never a part of the new one
  const seen = await readFile(file, 'utf8');
  t.ok(seen === '{"old":' || seen === text, 'the old text or the whole new one');
  await write;
  t.equal(await readFile(file, 'utf8'), text);
  t.same(await readdir(dir), ['chain.json'], 'no temporary file left');
});

t.test('mode: the file has it whatever the umask', async (t) => {
  const dir = t.testdir({});
  const file = join(dir, 'secret.json');
  const umask = process.umask(0o000);
  try {
    await writeWholeFile(file, '{}', { mode: 0o600 });
  } finally {
    process.umask(umask);
  }
  t.equal((await stat(file)).mode & 0o777, 0o600);
});
