import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createLogFile } from './create-log-file.ts';

t.test('appends, and rotates by size and by age keeping at most maxFiles', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-log-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'logs', 'query.log');
  let now = 1_000_000;
  const file = createLogFile({ path, rotate: { intervalMs: 1000, maxFiles: 3, maxBytes: 20 }, now: () => now });
  file.write('0123456789\n'); // 11 bytes
  file.write('abcdefghi\n'); // 21 bytes in all: over 20, so a new file
  t.same((await readdir(join(dir, 'logs'))).sort(), ['query.log', 'query.log.1']);
  t.equal(await readFile(path, 'utf8'), 'abcdefghi\n');
  t.equal(await readFile(`${path}.1`, 'utf8'), '0123456789\n');
  now += 1000; // a day, in this test's units
  file.write('later\n');
  t.equal(await readFile(path, 'utf8'), 'later\n', 'rotated by age');
  file.write('x\n');
  now += 1000;
  file.write('latest\n');
  t.same((await readdir(join(dir, 'logs'))).sort(), ['query.log', 'query.log.1', 'query.log.2'], 'at most 3 files');
  t.equal(await readFile(`${path}.1`, 'utf8'), 'later\nx\n');
  t.equal(await readFile(`${path}.2`, 'utf8'), 'abcdefghi\n', 'the oldest (0123456789) is dropped');
  file.close();
  const again = createLogFile({ path });
  again.write('appended\n');
  again.close();
  t.equal(await readFile(path, 'utf8'), 'latest\nappended\n', 'without rotation: appends to the existing file');
});

t.test('an unwritable path fails naming --log-path', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-log-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'a-file'), '');
  t.throws(() => createLogFile({ path: join(dir, 'a-file', 'query.log') }), { code: 'LOG_FILE_UNWRITABLE', message: /--log-path/ });
});
