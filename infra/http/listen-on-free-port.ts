import type { Server } from 'node:http';
import { IdxError } from '../../domain/errors.ts';

/**
 * Binds `server` to `port`, or to the next free port when it is busy (`--port`, docs/usage.md).
 * Returns the port actually bound, so the caller can say where it listens.
 */
export async function listenOnFreePort(server: Server, port: number, options: { host?: string; attempts?: number; flag?: string } = {}): Promise<number> {
  const attempts = options.attempts ?? 100;
  const flag = options.flag ?? '--port';
  for (let p = port; p < port + attempts && p <= 65535; p++) {
    const bound = await new Promise<boolean>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        if (err.code === 'EADDRINUSE' || err.code === 'EACCES') resolve(false);
        else reject(new IdxError('LISTEN_FAILED', `cannot listen on ${options.host ?? 'every interface'} port ${p}: ${err.message}`, { cause: err }));
      };
      const onListening = () => {
        server.off('error', onError);
        resolve(true);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(p, options.host);
    });
    if (bound) return p;
  }
  throw new IdxError('PORT_UNAVAILABLE', `no free port from ${port} to ${Math.min(65535, port + attempts - 1)}; choose another with ${flag}`);
}
