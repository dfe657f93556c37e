// Imported into every test process (.taprc node-arg), before any test asks os.tmpdir(): the suite's
// scratch folders go to a memory file system when the machine has one with room, and TMPDIR is not
// set already. Each PGlite data folder is a copy of the template's ~1,000 files, and the suite makes
// and deletes hundreds of them, with project copies and builds besides: on ext4, creating a file
// after many deletions walks the inode tables (ext4's recently_deleted): a quarter of the storage
// tests' CPU, and the suite's kernel time went from 153 to 96 CPU-s without it. The programs the
// tests spawn inherit TMPDIR. Plain JavaScript, as plain-child-processes.mjs: worker threads get the
// same flags, and tsx's loader does not reach them.
import { lstatSync, mkdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

const MEMORY = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;
// the suite's scratch at its peak is far below this (docs/decisions/contributing.md)
const ROOM_NEEDED = 4 * 2 ** 30;

/** A folder of this user's own on the memory file system, or undefined where there is none with room. */
function memoryScratch() {
  if (process.platform !== 'linux' || typeof process.getuid !== 'function') return undefined;
  try {
    const fs = statfsSync(MEMORY);
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < ROOM_NEEDED) return undefined;
    const dir = join(MEMORY, `idx-tests-${process.getuid()}`);
    mkdirSync(dir, { mode: 0o700, recursive: true });
    // the folder is shared by every test process of this user; anyone else's (or a link) is not used: the
    // rule of infra/files/private-cache-dir.ts's unsafeCacheDir, stricter (no one else may read it either),
    // written again here since this file cannot import TypeScript
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid() && (st.mode & 0o077) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

if (!process.env.TMPDIR) {
  const dir = memoryScratch();
  if (dir !== undefined) process.env.TMPDIR = dir;
}
