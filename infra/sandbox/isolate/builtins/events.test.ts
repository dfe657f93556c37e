import { EventEmitter as NodeEmitter } from 'node:events';
import t from 'tap';
import { EventEmitter, once } from './events.ts';

// The sandbox's EventEmitter against Node's, on the same script of calls.
function script(E: any): unknown[] {
  const log: unknown[] = [];
  const e = new E();
  e.on('newListener', (type: unknown) => typeof type === 'string' && type !== 'removeListener' && log.push(['new', type]));
  const a = (x: unknown) => log.push(['a', x]);
  e.on('x', a);
  e.prependListener('x', (x: unknown) => log.push(['first', x]));
  e.once('x', (x: unknown) => log.push(['once', x]));
  log.push(['emit', e.emit('x', 1), e.emit('x', 2), e.emit('nothing')]);
  log.push(['count', e.listenerCount('x'), e.listeners('x').includes(a), e.eventNames()]);
  e.off('x', a);
  const onceB = (x: unknown) => log.push(['b', x]);
  e.once('y', onceB);
  e.removeListener('y', onceB);
  log.push(['removed', e.emit('y', 3), e.listenerCount('x')]);
  try {
    e.emit('error', new Error('no listener'));
  } catch (err) {
    log.push(['threw', (err as Error).message]);
  }
  function Legacy(this: any) {
    E.call(this);
  }
  Object.setPrototypeOf(Legacy.prototype, E.prototype);
  const l = new (Legacy as any)();
  l.on('z', (v: unknown) => log.push(['legacy', v]));
  l.emit('z', 4);
  e.removeAllListeners();
  log.push(['cleared', e.eventNames()]);
  return log;
}

t.test('EventEmitter matches node:events', async (t) => {
  t.same(script(EventEmitter), script(NodeEmitter));
  const e = new EventEmitter();
  setTimeout(() => e.emit('done', 1, 2), 1);
  t.same(await once(e, 'done'), [1, 2]);
  setTimeout(() => e.emit('error', new Error('failed')), 1);
  await t.rejects(once(e, 'done'), /failed/);
});
