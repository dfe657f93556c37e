import streams from 'readable-stream';
import { Stream } from './legacy-stream.ts';

/**
 * `stream` for mappings: the npm `readable-stream` package (Node's own stream classes, as
 * browsers bundle them) on the sandbox's `events`, legacy `Stream` and timers (wired in
 * bundle-prelude.ts). As in Node, the module is the legacy `Stream` carrying `Readable`,
 * `Writable`, `Duplex`, `Transform`, `PassThrough`, `pipeline`, `finished` and `promises`.
 */
function pipeline(...streamsAndCallback: unknown[]): Promise<void> {
  return new Promise((resolve, reject) => {
    streams.pipeline(...streamsAndCallback, (err?: Error | null) => (err ? reject(err) : resolve()));
  });
}

function finished(stream: unknown, options?: object): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null) => (err ? reject(err) : resolve());
    if (options === undefined) streams.finished(stream, done);
    else streams.finished(stream, options, done);
  });
}

export const streamPromises = { pipeline, finished };

export const stream = Object.assign(Stream, {
  Stream,
  Readable: streams.Readable,
  Writable: streams.Writable,
  Duplex: streams.Duplex,
  Transform: streams.Transform,
  PassThrough: streams.PassThrough,
  pipeline: streams.pipeline,
  finished: streams.finished,
  promises: streamPromises,
});
