import t from 'tap';
import type { DataSource } from '../../../domain/project/project-model.ts';
import { createIndexerStatus } from '../indexing/indexer-status.ts';
import { createRateHistory } from './rate-history.ts';
import { statusDocument, type StatusFacts } from './status-document.ts';

const dataSource: DataSource = {
  kind: 'ethereum/Runtime',
  startBlock: 100,
  options: { address: '0xabc' },
  assets: {},
  mapping: { file: './dist/index.js', handlers: [{ kind: 'ethereum/LogHandler', handler: 'handleTransfer' }] },
};
const facts: StatusFacts = {
  project: 'erc20',
  schema: 'erc20',
  version: '0.1.0',
  startedAt: 0,
  chain: { chain: '1', specName: 'ethereum' },
  health: { healthy: true },
  endpoints: ['https://mainnet.example.com/v3/0123456789abcdef0123456789abcdef'],
  dataSources: [dataSource],
};

t.test('heights, share done, pace, ETA, data sources and redacted endpoints', async (t) => {
  const status = { ...createIndexerStatus(), startHeight: 100, lastProcessedHeight: 399, bestHeight: 1200, finalizedHeight: 1099, targetHeight: 1099 };
  const history = createRateHistory({ keep: 10 });
  history.sample({ blocksProcessed: 0, eventsProcessed: 0 }, 0);
  history.sample({ lastProcessedHeight: 399, blocksProcessed: 300, eventsProcessed: 600 }, 30_000);
  const doc = statusDocument(status, history, facts, 31_000);
  t.match(doc, {
    indexedHeight: 399,
    bestHeight: 1200,
    finalizedHeight: 1099,
    targetHeight: 1099,
    percent: 30,
    blocksPerSecond: 10,
    eventsPerSecond: 20,
    etaSeconds: 70,
    uptime: 31,
    caughtUp: false,
  });
  t.same(doc.dataSources, [{ kind: 'ethereum/Runtime', startBlock: 100, address: '0xabc', handlers: ['handleTransfer (ethereum/LogHandler)'] }]);
  t.same(doc.endpoints, ['https://mainnet.example.com/v3/***'], 'an API key in the URL is not shown');
  t.same(doc.links, { meta: '/meta', metrics: '/metrics', health: '/health' });
  t.notOk('etaSeconds' in statusDocument(status, createRateHistory({ keep: 10 }), facts), 'no ETA before the pace is known');
  const done = statusDocument({ ...status, lastProcessedHeight: 1099, caughtUp: true }, history, { ...facts, playground: 'http://localhost:3001/' });
  t.match(done, { percent: 100, etaSeconds: 0, links: { playground: 'http://localhost:3001/' } });
});
