import { int32, message } from './pg-wire.ts';
import { SCRAM_MECHANISM, startScram, type ScramExchange, type ScramSecret } from './scram-server.ts';

/** What a login's message leads to: the exchange going on and its reply, the exchange done and its last reply, or refused (undefined). */
export type LoginStep = { exchange: ScramExchange; reply: Buffer } | { done: Buffer } | undefined;

/** One step of a login's SCRAM exchange (`exchange` undefined before its first message): the client's first message, then its proof. */
export function loginStep(secret: ScramSecret, exchange: ScramExchange | undefined, type: string, body: Buffer): LoginStep {
  if (type !== 'p') return undefined;
  if (exchange === undefined) {
    const mechanism = body.toString('utf8', 0, Math.max(0, body.indexOf(0)));
    const at = body.indexOf(0) + 1;
    if (mechanism !== SCRAM_MECHANISM || at <= 0 || at + 4 > body.length) return undefined;
    const size = body.readInt32BE(at);
    const started = startScram(secret, body.toString('utf8', at + 4, at + 4 + Math.max(0, size)));
    if (started === undefined) return undefined;
    return { exchange: started, reply: message('R', int32(11), Buffer.from(started.serverFirst, 'utf8')) };
  }
  const final = exchange.finish(body.toString('utf8'));
  if (final === undefined) return undefined;
  return { done: message('R', int32(12), Buffer.from(final, 'utf8')) };
}
