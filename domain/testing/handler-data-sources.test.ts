import t from 'tap';
import type { DataSource } from '../project/project-model.ts';
import { handlerDataSources } from './handler-data-sources.ts';

const ds = (handlers: string[]): DataSource => ({
  kind: 'ethereum/Runtime',
  startBlock: 1,
  assets: {},
  mapping: { file: './dist/index.js', handlers: handlers.map((handler) => ({ handler, kind: 'ethereum/LogHandler' }) as never) },
});

t.test('keeps the data sources naming the handler, with all their handlers (as SubQuery runs them)', async (t) => {
  const out = handlerDataSources([ds(['handleLog', 'handleBlock']), ds(['handleBlock']), ds(['handleLog'])], 'handleLog');
  t.same(
    out.map((d) => d.mapping.handlers.map((h) => h.handler)),
    [['handleLog', 'handleBlock'], ['handleLog']],
  );
});

t.test('a handler no data source names is an error naming it', async (t) => {
  t.throws(() => handlerDataSources([ds(['handleBlock'])], 'handleLog'), { code: 'TEST_HANDLER_NOT_FOUND', message: /"handleLog"/ });
});
