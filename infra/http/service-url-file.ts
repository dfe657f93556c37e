import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../postgres/acquire-writer-lock.ts';

/** Which neighbour wrote the file: the node or the query service of one project. */
export type ServiceName = 'idx-node' | 'idx-query';

/** Where a running service of a project answers over HTTP, and which pages it serves. */
export interface ServiceUrl {
  url: string;
  /** idx-node: `--status-page` is on (served at `url`/); idx-query: `--playground` is on */
  page: boolean;
  pid: number;
  hostname: string;
}

const fileOf = (dir: string, service: ServiceName) => join(dir, `${service}-url.json`);

/**
 * Says where this process serves HTTP, in the project's data folder, so its neighbour on the same
 * project can link to it (the status page to the playground, the playground to the status page)
 * without being told. Returns a function that removes the file again.
 */
export async function publishServiceUrl(dir: string, service: ServiceName, info: { url: string; page: boolean }): Promise<() => Promise<void>> {
  const file = fileOf(dir, service);
  const record: ServiceUrl = { ...info, pid: process.pid, hostname: hostname() };
  await writeFile(file, `${JSON.stringify(record)}\n`);
  return () => rm(file, { force: true });
}

/** The neighbour's address, when it runs (on this host: its pid is alive); undefined otherwise. */
export async function readServiceUrl(dir: string, service: ServiceName): Promise<ServiceUrl | undefined> {
  let record: Partial<ServiceUrl>;
  try {
    record = JSON.parse(await readFile(fileOf(dir, service), 'utf8')) as Partial<ServiceUrl>;
  } catch {
    return undefined;
  }
  if (typeof record.url !== 'string' || typeof record.pid !== 'number') return undefined;
  if (record.hostname === hostname() && !isAlive(record.pid)) return undefined;
  return { url: record.url, page: record.page === true, pid: record.pid, hostname: String(record.hostname) };
}
