import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';

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
  const pglite = await openPgliteDir(building);
  await pglite.exec('create extension if not exists btree_gist');
  await pglite.close();
  // Another process may have finished first; then ours is redundant.
  await rename(building, template).catch(() => rm(building, { recursive: true, force: true }));
  return template;
}

/**
 * Fills a data folder that holds no database yet from the template; leaves existing data alone.
 * A process killed (or a disk filling up) half-way must not leave a folder that looks like a
 * database: the copy is made beside it and its entries moved in with `PG_VERSION`, the mark of a
 * database, last. What an interrupted seeding left is cleared first (nothing else in the folder,
 * such as the socket served to idx-query, is touched).
 */
export async function seedPgliteDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const template = await pgliteTemplate();
  const entries = (await readdir(template)).sort((a, b) => Number(a === 'PG_VERSION') - Number(b === 'PG_VERSION'));
  await mkdir(dataDir, { recursive: true });
  for (const name of entries) await rm(join(dataDir, name), { recursive: true, force: true });
  const prefix = `${basename(dataDir)}.seeding-`;
  for (const left of (await readdir(dirname(dataDir))).filter((n) => n.startsWith(prefix))) await rm(join(dirname(dataDir), left), { recursive: true, force: true });
  const staging = await mkdtemp(join(dirname(dataDir), prefix));
  try {
    await cp(template, staging, { recursive: true });
    for (const name of entries) await rename(join(staging, name), join(dataDir, name));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Opens PGlite with `btree_gist` on a data folder. Loaded on first use, so a node on PostgreSQL
 * never loads the embedded database (about 20 MiB).
 */
export async function openPgliteDir(dataDir: string): Promise<PGlite> {
  const [{ PGlite }, { btree_gist }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/btree_gist')]);
  return PGlite.create({ dataDir, extensions: { btree_gist } });
}
