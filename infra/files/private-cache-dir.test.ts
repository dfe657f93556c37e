import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Teardown } from '../../test/support/teardown.ts';
import { privateCacheDir, unsafeCacheDir } from './private-cache-dir.ts';

const uid = process.getuid?.();
const skip = uid === undefined ? 'no user ids on this platform' : false;

function sharedTemp(t: Teardown): string {
  const base = mkdtempSync(join(tmpdir(), 'idx-shared-temp-'));
  // a temp folder every user may write, as /tmp is
  chmodSync(base, 0o1777);
  t.teardown(() => rmSync(base, { recursive: true, force: true }));
  return base;
}

t.test('the cache folder is made for this user alone, and the same one is found again', { skip }, async (t) => {
  const base = sharedTemp(t);
  const dir = await privateCacheDir(base);
  t.equal(dir, join(base, `idx-${uid}`));
  const stat = lstatSync(dir);
  t.equal(stat.mode & 0o777, 0o700, 'only its owner may read, write or list it');
  t.equal(stat.uid, uid);
  t.equal(await privateCacheDir(base), dir, 'a later run keeps using it');
});

t.test('a folder under the cache name that others can write is not used: what was planted in it never runs', { skip }, async (t) => {
  const base = sharedTemp(t);
  const planted = join(base, `idx-${uid}`);
  mkdirSync(planted);
  chmodSync(planted, 0o777);
  writeFileSync(join(planted, 'idx-sandbox-prelude-0000000000000000.js'), 'throw new Error("planted")');
  const dir = await privateCacheDir(base);
  t.not(dir, planted);
  t.equal(lstatSync(dir).mode & 0o777, 0o700, 'a new private folder for this process instead');
  t.equal(await privateCacheDir(base), dir, 'the same one at every call of the process: what is made there is made once');
});

t.test('a symbolic link under the cache name is not followed', { skip }, async (t) => {
  const base = sharedTemp(t);
  const elsewhere = mkdtempSync(join(base, 'elsewhere-'));
  symlinkSync(elsewhere, join(base, `idx-${uid}`));
  const dir = await privateCacheDir(base);
  t.not(dir, join(base, `idx-${uid}`));
  t.not(dir, elsewhere);
});

t.test('a temp folder that does not exist yet is made', { skip }, async (t) => {
  const base = join(sharedTemp(t), 'not', 'there');
  t.equal(await privateCacheDir(base), join(base, `idx-${uid}`));
});

t.test('why a folder is unsafe, from its stat', async (t) => {
  const stat = (o: { dir?: boolean; link?: boolean; uid?: number; mode?: number }) => ({
    isDirectory: () => o.dir ?? true,
    isSymbolicLink: () => o.link ?? false,
    uid: o.uid ?? 1000,
    mode: o.mode ?? 0o40700,
  });
  t.equal(unsafeCacheDir(stat({}), 1000), undefined);
  t.equal(unsafeCacheDir(stat({ mode: 0o40755 }), 1000), undefined, 'others may read it: they cannot change it');
  t.equal(unsafeCacheDir(stat({ link: true, dir: false }), 1000), 'it is a symbolic link');
  t.equal(unsafeCacheDir(stat({ dir: false }), 1000), 'it is not a folder');
  t.equal(unsafeCacheDir(stat({ uid: 0 }), 1000), 'it belongs to user 0');
  t.equal(unsafeCacheDir(stat({ mode: 0o40770 }), 1000), 'others can write to it');
  t.equal(unsafeCacheDir(stat({ mode: 0o40702 }), 1000), 'others can write to it');
});
