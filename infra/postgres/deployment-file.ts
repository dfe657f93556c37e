import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { IdxError } from '../../domain/errors.ts';
import { readFileIfPresent } from '../files/read-file-if-present.ts';
import { writeWholeFile } from '../files/write-whole-file.ts';

/**
 * Blue/green on the embedded database (docs/deploy.md). Each project folder has a database of its
 * own, opened by its node alone, so two versions are indexed in two folders, and a deployment is
 * the folder idx-query serves (`idx-query -f app`): a file in its `.idx-data` points at the folder
 * and schema served under it. The PostgreSQL counterpart is a row (deployment-pointer.ts).
 */
export const DEPLOYMENT_FILE = 'idx-deployment.json';
/** In a promoted folder: the deployments (served folders) that were pointed at it, for force-clean. */
export const SERVED_AS_FILE = 'idx-served-as.json';
const DATA_DIR = '.idx-data';

/** A version of a project on the embedded database: its folder and the schema its node writes. */
export interface FolderTarget {
  folder: string;
  schema: string;
}

export interface FileDeployment {
  /** the served folder: the deployment's name */
  name: string;
  live: FolderTarget;
  previous: FolderTarget | null;
  promotedAt: string;
}

const same = (a: FolderTarget | null | undefined, b: FolderTarget) => a?.folder === b.folder && a.schema === b.schema;

/**
 * The project folder a deployment name stands for on the embedded database: a path, from the
 * current folder, to a folder with an embedded database (`.idx-data`).
 */
export async function servedFolder(name: string, cwd = process.cwd()): Promise<string> {
  const folder = resolve(cwd, name);
  const isDir = await stat(join(folder, DATA_DIR)).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir)
    throw new IdxError(
      'DEPLOYMENT_NOT_FOUND',
      `the deployment "${name}": without DB_HOST a deployment is the project folder idx-query serves (idx-query -f <folder>), given as a path from the current folder, but ${folder} has no embedded database (${DATA_DIR}): index it once first`,
    );
  return folder;
}

/** The pointer of a served folder, or undefined when it serves its own schema. */
export async function readDeploymentFile(folder: string): Promise<FileDeployment | undefined> {
  const file = join(folder, DATA_DIR, DEPLOYMENT_FILE);
  const text = await readFileIfPresent(file);
  if (text === undefined) return undefined;
  let parsed: Partial<FileDeployment> | undefined;
  try {
    parsed = JSON.parse(text) as Partial<FileDeployment>;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed?.live?.folder !== 'string' || typeof parsed.live.schema !== 'string')
    throw new IdxError('DEPLOYMENT_FILE_INVALID', `${file} names no folder and schema: promote again (idx-node promote)`);
  return parsed as FileDeployment;
}

/**
 * Points the served folder at `target`: the file is replaced whole (a reader never sees half of
 * it), and the target folder notes that it is served, so force-clean there can refuse.
 */
export async function promoteFolder(name: string, target: FolderTarget): Promise<FileDeployment> {
  // a pointer that cannot be read is what a promotion mends: it is written anew, with no previous version
  const was = await readDeploymentFile(name).catch((err: unknown) => {
    if ((err as IdxError).code === 'DEPLOYMENT_FILE_INVALID') return undefined;
    throw err;
  });
  const current = was?.live ?? null;
  const pointer: FileDeployment = {
    name,
    live: target,
    previous: same(current, target) ? (was?.previous ?? null) : current,
    promotedAt: new Date().toISOString(),
  };
  const servedAs = await readServedAs(target.folder);
  if (!servedAs.includes(name)) await writeWholeFile(join(target.folder, DATA_DIR, SERVED_AS_FILE), JSON.stringify([...servedAs, name]) + '\n');
  await writeWholeFile(join(name, DATA_DIR, DEPLOYMENT_FILE), JSON.stringify(pointer, null, 2) + '\n');
  return pointer;
}

/** The served folders whose pointer is at `target` now (a live version is not dropped). */
export async function foldersServing(target: FolderTarget): Promise<string[]> {
  const serving: string[] = [];
  for (const name of await readServedAs(target.folder)) {
    const pointer = await readDeploymentFile(name).catch(() => undefined);
    if (same(pointer?.live, target)) serving.push(name);
  }
  return serving;
}

async function readServedAs(folder: string): Promise<string[]> {
  const text = await readFileIfPresent(join(folder, DATA_DIR, SERVED_AS_FILE));
  if (text === undefined) return [];
  try {
    const list = JSON.parse(text) as unknown;
    return Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Calls `heard` when the served folder's pointer file is written (a rename into `.idx-data`).
 * Returns how to stop. A missed event is covered by the query service's timer.
 */
export function watchDeploymentFile(folder: string, heard: () => void, onError: (err: Error) => void): () => void {
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(join(folder, DATA_DIR), { persistent: false }, (_event, file) => {
      if (file === DEPLOYMENT_FILE) heard();
    });
    watcher.on('error', onError);
  } catch (err) {
    onError(err as Error);
  }
  return () => watcher?.close();
}
