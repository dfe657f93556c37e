import { EventEmitter } from './events.ts';

/**
 * Node's legacy `Stream`: the EventEmitter every stream class inherits from (so
 * `x instanceof require('stream')` holds for all of them), with the old `pipe` that
 * `Readable` overrides. The bundled readable-stream is pointed at it (bundle-prelude.ts).
 */
type Emitter = InstanceType<typeof EventEmitter> & Record<string, any>;

export const Stream = function Stream(this: Emitter) {
  EventEmitter.call(this);
} as unknown as { new (): Emitter; (this: Emitter): void; prototype: Emitter };
Object.setPrototypeOf(Stream.prototype, EventEmitter.prototype);
Object.setPrototypeOf(Stream, EventEmitter);

Stream.prototype.pipe = function pipe(this: Emitter, dest: Emitter, options?: { end?: boolean }) {
  const source = this;
  const ondata = (chunk: unknown) => {
    if (dest.writable && dest.write(chunk) === false && source.pause) source.pause();
  };
  const ondrain = () => {
    if (source.readable && source.resume) source.resume();
  };
  let ended = false;
  const onend = () => {
    if (ended) return;
    ended = true;
    dest.end();
  };
  const onclose = () => {
    if (ended) return;
    ended = true;
    if (typeof dest.destroy === 'function') dest.destroy();
  };
  function onerror(this: Emitter, er: unknown) {
    cleanup();
    if (this.listenerCount('error') === 0) this.emit('error', er);
  }
  const cleanup = () => {
    source.removeListener('data', ondata);
    dest.removeListener('drain', ondrain);
    source.removeListener('end', onend);
    source.removeListener('close', onclose);
    source.removeListener('error', onerror);
    dest.removeListener('error', onerror);
    source.removeListener('end', cleanup);
    source.removeListener('close', cleanup);
    dest.removeListener('close', cleanup);
  };
  source.on('data', ondata);
  dest.on('drain', ondrain);
  if (options?.end !== false) {
    source.on('end', onend);
    source.on('close', onclose);
  }
  source.prependListener('error', onerror);
  dest.prependListener('error', onerror);
  source.on('end', cleanup);
  source.on('close', cleanup);
  dest.on('close', cleanup);
  dest.emit('pipe', source);
  return dest;
};
