import type { Stats } from 'node:fs';
import { lstat, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The folder where idx keeps what it makes once per machine and then trusts: the sandbox's
 * bundles, which run inside every project's sandbox, and PGlite's `initdb` template, which every
 * new embedded database is copied from. The temp folder is shared by every user of the machine and
 * names there are predictable, so anyone could plant a file under a cache's name before idx first
 * runs (or change one after), and every project would then run that code or start from that
 * database. Hence a folder of the temp folder that only this user can write: `idx-<uid>`, made
 * 0700 and used only while it is a real folder (not a link), owned by this user and writable by no
 * one else. When it is not (someone made it first), this process gets a new private folder of its
 * own, the same for all its calls: nothing is shared with later runs, which only makes them rebuild.
 */
export async function privateCacheDir(base = tmpdir()): Promise<string> {
  const uid = process.getuid?.();
  // no uids (Windows): the temp folder is the user's own
  if (uid === undefined) return base;
  const dir = join(base, `idx-${uid}`);
  await mkdir(base, { recursive: true });
  await mkdir(dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  if (unsafeCacheDir(await lstat(dir), uid) === undefined) return dir;
  // one for the whole process, so what it makes there is made once
  let own = ownFolders.get(base);
  if (own === undefined) ownFolders.set(base, (own = mkdtemp(join(base, `idx-${uid}-`))));
  return own;
}
const ownFolders = new Map<string, Promise<string>>();

/** Why a cache folder may hold what someone else wrote, or undefined when only `uid` can write it. */
export function unsafeCacheDir(stat: Pick<Stats, 'isDirectory' | 'isSymbolicLink' | 'uid' | 'mode'>, uid: number): string | undefined {
  if (stat.isSymbolicLink()) return 'it is a symbolic link';
  if (!stat.isDirectory()) return 'it is not a folder';
  if (stat.uid !== uid) return `it belongs to user ${stat.uid}`;
  if ((stat.mode & 0o022) !== 0) return 'others can write to it';
  return undefined;
}
