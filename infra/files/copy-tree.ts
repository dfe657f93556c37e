import { chmod, copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** How many files are copied at once: enough to keep libuv's thread pool (4 threads) busy. */
const AT_ONCE = 16;

/**
 * Copies the folder `from` to `to` (made, with every subfolder), its files several at a time.
 * `fs.cp` copies one file after another: for PGlite's template (about 1,000 small files) that
 * was 0.6–0.7 s of a start, mostly waiting; this takes a third of it. Only folders and regular
 * files are copied, with their modes (PostgreSQL checks its folder's), not their times; anything
 * else (a link, a socket) is an error, so a copy never silently differs from its source.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  const folders: string[] = [];
  const files: string[] = [];
  for (const e of entries) {
    const path = relative(from, join(e.parentPath, e.name));
    if (e.isDirectory()) folders.push(path);
    else if (e.isFile()) files.push(path);
    else throw new Error(`${join(from, path)} is neither a file nor a folder; it cannot be copied`);
  }
  // parents before children: a path sorts after every prefix of it
  for (const folder of ['', ...folders.sort()]) {
    await mkdir(join(to, folder), { recursive: true });
    await chmod(join(to, folder), (await stat(join(from, folder))).mode & 0o7777);
  }
  let next = 0;
  // The first failure (a full disk) stops every worker, and is thrown once none is still writing: a
  // caller that then removes the half copy must not race copies still making files in it.
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < files.length && failure === undefined) {
      const file = files[next++]!;
      // copyFile gives the copy its source's mode
      await copyFile(join(from, file), join(to, file)).catch((error: unknown) => void (failure ??= { error }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, files.length) }, worker));
  if (failure !== undefined) throw failure.error;
}
