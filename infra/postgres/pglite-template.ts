import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Extension, PGlite } from '@electric-sql/pglite';
import { copyTree } from '../files/copy-tree.ts';
import { privateCacheDir } from '../files/private-cache-dir.ts';
import { parseUtcTimestamp, TIMESTAMP_OID } from './utc-timestamps.ts';

/**
 * PGlite runs `initdb` in wasm for every new data folder, which takes seconds. The result is the
 * same every time for one PGlite version, so it is made once per machine (in a child process,
 * make-pglite-template.ts; by idx's install script already: bin/warm-caches.js) and copied: a new
 * project's first start, and every test, skip most of that wait. It is kept in the user's private
 * cache folder (private-cache-dir.ts): every new database starts as a copy of it, so no one else
 * may write it.
 */
export async function pgliteTemplate(): Promise<string> {
  // The package does not export its package.json; it sits one folder above the entry point.
  const pkg = join(dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite'))), '..', 'package.json');
  const { version } = JSON.parse(await readFile(pkg, 'utf8')) as { version: string };
  const cache = await privateCacheDir();
  const template = join(cache, `idx-pglite-template-${version}`);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  const building = await mkdtemp(join(cache, 'idx-pglite-template-building-'));
  try {
    await inChildProcess('template', building);
    // Another process may have finished first; then ours is redundant.
    await rename(building, template).catch(() => undefined);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return template;
}

/**
 * The template as the tar archive PGlite loads into memory (`loadDataDir`): an in-memory database
 * (`memory://`, each test of `idx-node test`) then starts in well under a second instead of running
 * `initdb` (about 7 s on a busy 2-core machine). Made once per machine beside the template, from a
 * copy of it; written whole or not at all.
 */
export async function pgliteTemplateArchive(): Promise<Blob> {
  const template = await pgliteTemplate();
  const archive = `${template}.tar`;
  if (!existsSync(archive)) {
    const building = await mkdtemp(join(dirname(template), 'idx-pglite-archive-building-'));
    try {
      const copy = join(building, DATABASE_FOLDER);
      await copyTree(template, copy);
      const partial = join(building, 'template.tar');
      await inChildProcess('archive', copy, partial);
      // another process may have finished first: either archive is the same
      await rename(partial, archive).catch(() => undefined);
    } finally {
      await rm(building, { recursive: true, force: true });
    }
  }
  return new Blob([await readFile(archive)]);
}

const runFile = promisify(execFile);

/** Runs make-pglite-template.ts as a script (`.ts` through tsx from the sources, `.js` once compiled). */
async function inChildProcess(...args: string[]): Promise<void> {
  const here = fileURLToPath(import.meta.url);
  const ext = extname(here);
  const loader = ext === '.ts' ? ['--import', import.meta.resolve('tsx')] : [];
  await runFile(process.execPath, [...loader, join(dirname(here), `make-pglite-template${ext}`), ...args], { maxBuffer: 2 ** 20 });
}

/**
 * The subfolder of a data folder that holds the database. The data folder itself is never
 * replaced: it may be a mount point (a Docker volume at `<project>/.idx-data`), which can be
 * neither removed nor renamed onto. It also holds the lock and socket files.
 */
export const DATABASE_FOLDER = 'pgdata';

/**
 * Where the database of a data folder is: the folder itself when an idx before the `pgdata`
 * subfolder made it there (read in place, never moved: a move cut short would split it), else
 * its `pgdata` subfolder, which may not exist yet.
 */
export function pgliteDatabaseDir(dataDir: string): string {
  return existsSync(join(dataDir, 'PG_VERSION')) ? dataDir : join(dataDir, DATABASE_FOLDER);
}

/**
 * Fills a data folder that does not exist yet (or holds no database) from the template; leaves
 * existing data alone. Returns the folder PGlite opens (see {@link pgliteDatabaseDir}). The copy
 * is made inside the data folder and renamed into place as its `pgdata` subfolder, so a full disk
 * or a kill mid-copy leaves no half database behind (a later start would fail on it for ever).
 */
export async function seedPgliteDir(dataDir: string): Promise<string> {
  const database = pgliteDatabaseDir(dataDir);
  if (existsSync(join(database, 'PG_VERSION'))) return database;
  const template = await pgliteTemplate();
  const made = !existsSync(dataDir);
  await mkdir(dataDir, { recursive: true });
  await removeCutCopies(dataDir);
  // one that exists is empty (it replaces it) or not ours: the rename below would fail on it
  const there = await readdir(database).catch(() => []);
  if (there.length > 0) {
    throw new Error(
      `${database} holds no database but is not empty (${there.slice(0, 3).join(', ')}${there.length > 3 ? ', …' : ''}); move it away or point idx at another folder`,
    );
  }
  const building = await mkdtemp(join(dataDir, `${DATABASE_FOLDER}.seeding-`));
  try {
    await copyTree(template, building);
    await rename(building, database).catch((err: unknown) => {
      if (!existsSync(join(database, 'PG_VERSION'))) throw err; // else another process seeded it meanwhile
    });
  } catch (err) {
    await rm(building, { recursive: true, force: true });
    // a data folder this call made goes again (one that existed, perhaps a mount point, stays)
    if (made) await rmdir(dataDir).catch(() => undefined);
    throw err;
  }
  await rm(building, { recursive: true, force: true });
  return database;
}

/** Copies a kill cut short (the cleanup above never ran): inside the data folder, and beside it where an older idx made them. */
async function removeCutCopies(dataDir: string): Promise<void> {
  const inside = `${DATABASE_FOLDER}.seeding-`;
  for (const left of (await readdir(dataDir)).filter((n) => n.startsWith(inside))) await rm(join(dataDir, left), { recursive: true, force: true });
  const parent = dirname(dataDir);
  const beside = `${basename(dataDir)}.seeding-`;
  for (const left of (await readdir(parent).catch(() => [])).filter((n) => n.startsWith(beside))) {
    await rm(join(parent, left), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** PGlite's code: its modules and its WebAssembly compiled. */
export interface PgliteCode {
  PGlite: typeof PGlite;
  btreeGist: Extension;
  /** undefined where the package keeps it elsewhere: PGlite then loads it itself */
  wasmModule?: WebAssembly.Module;
}

/**
 * Loads PGlite's code. Started before the data folder is seeded (`openPglite` in create-db.ts), so
 * compiling its 9 MB of WebAssembly (on V8's background threads) overlaps the copy of the template,
 * which mostly waits on the disk; PGlite would otherwise compile it only once it opens the folder.
 * Its file system bundle (6 MB) is left to PGlite: read here, it would be copied once more into a
 * Blob for a read of a few milliseconds. Loaded on first use, so a node on PostgreSQL never loads
 * the embedded database (about 20 MiB).
 */
export async function loadPgliteCode(): Promise<PgliteCode> {
  const dist = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  const [{ PGlite }, { btree_gist }, wasmModule] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/btree_gist'),
    readFile(join(dist, 'pglite.wasm')).then(
      (bytes) => WebAssembly.compile(bytes),
      () => undefined,
    ),
  ]);
  return { PGlite, btreeGist: btree_gist, ...(wasmModule !== undefined && { wasmModule }) };
}

/**
 * Opens PGlite with `btree_gist` on a data folder (`memory://` with `loadDataDir`: an in-memory one
 * holding that archive's database, see pgliteTemplateArchive), from its code loaded (by default now).
 */
export async function openPgliteDir(dataDir: string, loadDataDir?: Blob, code: Promise<PgliteCode> = loadPgliteCode()): Promise<PGlite> {
  const { PGlite, btreeGist, wasmModule } = await code;
  return PGlite.create({
    dataDir,
    ...(loadDataDir !== undefined && { loadDataDir }),
    ...(wasmModule !== undefined && { pgliteWasmModule: wasmModule }),
    extensions: { btree_gist: btreeGist },
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
    parsers: { [TIMESTAMP_OID]: parseUtcTimestamp },
  });
}

/**
 * PostgreSQL's default 128 MB of shared buffers are allocated in PGlite's WebAssembly heap, which
 * is resident from the start and never shrinks: +125 MiB of RSS before the first query. 32 MB
 * (+30 MiB) holds a project's hot pages; colder ones are read from the data folder's files.
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=32MB'];
