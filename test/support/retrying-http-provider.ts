import { HttpProvider } from '@polkadot/api';

/**
 * @polkadot/api's HttpProvider, a request tried again when its connection broke: chopsticks's HTTP
 * server, under a loaded machine, resets a connection now and then (`fetch failed … ECONNRESET`).
 * For the reference side of differential tests only, which is not what they test; a JSON-RPC error
 * answered by the chain is never retried.
 */
export class RetryingHttpProvider extends HttpProvider {
  override async send<T>(method: string, params: unknown[], isCacheable?: boolean): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await super.send<T>(method, params, isCacheable);
      } catch (err) {
        const broken = /fetch failed|ECONNRESET|socket hang up|other side closed/i.test(`${String(err)} ${String((err as { cause?: unknown }).cause)}`);
        if (!broken || attempt >= 5) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }
}
