import { chmod, unlink } from 'node:fs/promises';
import type { Server } from 'node:net';

/** Where a server listens: a Unix socket path, or a TCP host and port (0 picks a free one). */
export type ListenAt = { path: string } | { host: string; port: number };

/**
 * Starts `server` listening; the address clients connect to (the port a 0 picked). A Unix socket
 * is the owner's alone (0600), and one left by a process that died is replaced.
 */
export async function listenSocket(server: Server, where: ListenAt): Promise<ListenAt> {
  if ('path' in where) await unlink(where.path).catch(() => undefined); // left by a process that died
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in where) {
      // the socket file is made while listen() runs: with this umask it is the owner's alone (0600) from the start
      // (a worker thread may not set the umask: the chmod below then closes the short gap)
      let umask: number | undefined;
      try {
        umask = process.umask(0o177);
      } catch {
        umask = undefined;
      }
      try {
        server.listen(where.path, resolve);
      } finally {
        if (umask !== undefined) process.umask(umask);
      }
    } else server.listen(where.port, where.host, resolve);
  });
  if ('path' in where) await chmod(where.path, 0o600);
  const bound = server.address();
  return 'path' in where ? { path: where.path } : { host: where.host, port: typeof bound === 'object' && bound !== null ? bound.port : where.port };
}
