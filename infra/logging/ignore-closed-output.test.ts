import { PassThrough } from 'node:stream';
import t from 'tap';
import { ignoreClosedOutput, isClosedOutputError } from './ignore-closed-output.ts';

const withCode = (code: string) => Object.assign(new Error(code), { code });

t.test('a closed pipe, a reset socket, a hung-up terminal and a torn-down stream count as a closed output', async (t) => {
  for (const code of ['EPIPE', 'ECONNRESET', 'EIO', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']) t.ok(isClosedOutputError(withCode(code)), code);
  for (const err of [withCode('ENOSPC'), withCode('EACCES'), new Error('no code'), undefined, null, 'EPIPE']) t.notOk(isClosedOutputError(err), String(err));
});

t.test('a guarded stream drops its closed-output errors and rethrows the others', async (t) => {
  const stream = new PassThrough();
  ignoreClosedOutput([stream]);
  ignoreClosedOutput([stream]);
  t.equal(stream.listenerCount('error'), 1, 'guarded once');
  t.doesNotThrow(() => stream.emit('error', withCode('EPIPE')));
  t.throws(() => stream.emit('error', withCode('ENOSPC')), { code: 'ENOSPC' });
});
