import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { parseUtcTimestamp, TIMESTAMP_OID } from './utc-timestamps.ts';

/**
 * PGlite runs `initdb` in wasm for every new data folder, which takes seconds. The result is the
 * same every time for one PGlite version, so it is made once per machine (in the temp folder)
 * and copied: a new project's first start, and every test, skip most of that wait.
 */
export async function pgliteTemplate(): Promise<string> {
  // The package does not export its package.json; it sits one folder above the entry point.
  const pkg = join(dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite'))), '..', 'package.json');
  const { version } = JSON.parse(await readFile(pkg, 'utf8')) as { version: string };
  const template = join(tmpdir(), `idx-pglite-template-${version}`);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  await mkdir(tmpdir(), { recursive: true });
  const building = await mkdtemp(join(tmpdir(), 'idx-pglite-template-building-'));
  try {
    const pglite = await openPgliteDir(building);
    await pglite.exec('create extension if not exists btree_gist');
    await pglite.close();
    // Another process may have finished first; then ours is redundant.
    await rename(building, template).catch(() => undefined);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return template;
}

// What a data folder may hold without being a database: a copy cut short, our lock and socket files.
const LEFTOVER = /^(PG_VERSION|base|global|pg_[\w.]+|postgresql\.(auto\.)?conf|postmaster\.\w+|idx-.*|\.s\.PGSQL\..*)$/;

/**
 * Fills a data folder that does not exist yet (or holds no database) from the template; leaves
 * existing data alone. The copy is made beside it and renamed into place, so a full disk or a
 * kill mid-copy leaves no half database behind (a later start would fail on it for ever).
 */
export async function seedPgliteDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const template = await pgliteTemplate();
  const parent = dirname(dataDir);
  await mkdir(parent, { recursive: true });
  // copies a kill cut short (the finally below never ran) go first
  const prefix = `${basename(dataDir)}.seeding-`;
  for (const left of (await readdir(parent)).filter((n) => n.startsWith(prefix))) await rm(join(parent, left), { recursive: true, force: true });
  const building = await mkdtemp(join(parent, prefix));
  try {
    await cp(template, building, { recursive: true });
    if (existsSync(join(dataDir, 'PG_VERSION'))) return; // another process seeded it meanwhile
    if (existsSync(dataDir)) {
      // No PG_VERSION: empty, or cut short by an older idx. Anything else in it is the user's.
      const foreign = (await readdir(dataDir)).filter((name) => !LEFTOVER.test(name));
      if (foreign.length > 0) {
        throw new Error(
          `${dataDir} holds no database but is not empty (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}); move it away or point idx at another folder`,
        );
      }
      await rm(dataDir, { recursive: true, force: true });
    }
    await rename(building, dataDir);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
}

/**
 * Opens PGlite with `btree_gist` on a data folder. Loaded on first use, so a node on PostgreSQL
 * never loads the embedded database (about 20 MiB).
 */
export async function openPgliteDir(dataDir: string): Promise<PGlite> {
  const [{ PGlite }, { btree_gist }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/btree_gist')]);
  return PGlite.create({
    dataDir,
    extensions: { btree_gist },
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
