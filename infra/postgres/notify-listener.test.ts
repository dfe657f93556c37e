import { rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { createDb } from './create-db.ts';
import { createNotifyListener } from './notify-listener.ts';
import { publishPgliteSocket } from './pglite-socket-endpoint.ts';
import { freshPgliteDir } from '../../test/support/test-backends.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('closed while its database is gone (the node stopping with idx-query): no attempt reported, the reconnecting ends', async (t) => {
  const dir = await freshPgliteDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const node = await createDb({ env: {}, dataDir: dir });
  const published = await publishPgliteSocket(node, dir);
  const { host, port, owner } = published.endpoint;
  const reported: { attempt: number; afterClose: boolean }[] = [];
  let closed = false;
  const listener = await createNotifyListener({
    connection: { host, port, user: owner.user, password: owner.password, database: 'postgres' },
    onReconnect: (attempt) => reported.push({ attempt, afterClose: closed }),
    onError: () => {},
  });
  await listener.subscribe('items', () => {});
  await published.close();
  await node.close();
  for (let i = 0; i < 100 && reported.length === 0; i++) await sleep(10);
  t.ok(reported.length > 0, 'the connection lost, it reconnects');

  closed = true;
  await listener.close();
  // where the database was: a server that counts who still knocks, and hangs up
  const knocks: Socket[] = [];
  const path = join(host, `.s.PGSQL.${port}`);
  await rm(path, { force: true });
  const server = createServer((socket) => {
    knocks.push(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  // without the end, attempts come 250, 500, 1,000 and 2,000 ms apart, for ever
  await sleep(2500);
  t.ok(knocks.length <= 1, `at most the attempt already waiting when closed (${knocks.length})`);
  t.same(
    reported.filter((r) => r.afterClose),
    [],
    'no attempt reported after close',
  );
});
