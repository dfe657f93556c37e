import t from 'tap';
import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyTree } from './copy-tree.ts';

t.test('copies every folder and file, with their modes, into a folder it makes', async (t) => {
  const dir = t.testdir({ src: { PG_VERSION: '17\n', base: { '5': { '1259': 'pages', '1259_fsm': 'fsm' }, '1': {} }, global: { pg_control: 'ctl' } } });
  const src = join(dir, 'src');
  // more files than are copied at once
  for (let i = 0; i < 40; i++) await writeFile(join(src, 'base', '5', `f${i}`), `file ${i}`);
  await chmod(join(src, 'base'), 0o700);
  await chmod(join(src, 'PG_VERSION'), 0o600);
  await copyTree(src, join(dir, 'copy', 'pgdata'));
  const copy = join(dir, 'copy', 'pgdata');
  t.equal(await readFile(join(copy, 'PG_VERSION'), 'utf8'), '17\n');
  t.equal(await readFile(join(copy, 'base', '5', '1259_fsm'), 'utf8'), 'fsm');
  t.equal(await readFile(join(copy, 'global', 'pg_control'), 'utf8'), 'ctl');
  for (let i = 0; i < 40; i++) t.equal(await readFile(join(copy, 'base', '5', `f${i}`), 'utf8'), `file ${i}`);
  t.ok((await stat(join(copy, 'base', '1'))).isDirectory(), 'an empty folder is copied');
  t.equal((await stat(join(copy, 'base'))).mode & 0o777, 0o700, "a folder's mode");
  t.equal((await stat(join(copy, 'PG_VERSION'))).mode & 0o777, 0o600, "a file's mode");
});

t.test('refuses what is neither a file nor a folder, naming it', async (t) => {
  const dir = t.testdir({ src: { a: 'x' } });
  await mkdir(join(dir, 'src', 'sub'));
  await symlink(join(dir, 'src', 'a'), join(dir, 'src', 'sub', 'link'));
  await t.rejects(copyTree(join(dir, 'src'), join(dir, 'copy')), /sub\/link is neither a file nor a folder/);
});
