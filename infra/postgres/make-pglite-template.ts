import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openPgliteDir } from './pglite-template.ts';

/**
 * The two things made with PGlite once per machine (pglite-template.ts), each run as a script in a
 * child process: PGlite's WebAssembly memory never shrinks, so `initdb` run in the indexer itself
 * left its peak RSS ~400 MiB higher for the whole run (843 against 432 MiB on the ERC20 bench's
 * first run on a new machine).
 */

/** Runs `initdb` in the empty folder `dir`, with the extensions idx creates in every database. */
export async function makeTemplate(dir: string): Promise<void> {
  const pglite = await openPgliteDir(dir);
  await pglite.exec('create extension if not exists btree_gist');
  await pglite.close();
}

/** Writes the database in `dir` as the tar archive PGlite loads into memory (`loadDataDir`) to `file`. */
export async function dumpArchive(dir: string, file: string): Promise<void> {
  const pglite = await openPgliteDir(dir);
  const tar = await pglite.dumpDataDir('none');
  await pglite.close();
  await writeFile(file, Buffer.from(await tar.arrayBuffer()));
}

// As a script: `template <empty-dir>` or `archive <database-dir> <tar-file>`.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [what, dir, file] = process.argv.slice(2);
  if (what === 'template' && dir !== undefined) await makeTemplate(dir);
  else if (what === 'archive' && dir !== undefined && file !== undefined) await dumpArchive(dir, file);
  else throw new Error('usage: make-pglite-template template <empty-dir> | archive <database-dir> <tar-file>');
}
