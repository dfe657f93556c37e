import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Db } from '../../infra/postgres/create-db.ts';
import { promoteFolder } from '../../infra/postgres/deployment-file.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { firstFolder, folderFollower } from './deployment-followers.ts';

const root = await mkdtemp(join(tmpdir(), 'idx-followers-'));
t.teardown(() => rm(root, { recursive: true, force: true }));
const folder = async (name: string) => {
  const dir = join(root, name);
  await mkdir(join(dir, '.idx-data'), { recursive: true });
  return dir;
};
const [app, v2] = [await folder('app'), await folder('app-v2')];
const logger = createLogger({ level: 'silent', format: 'json', write: () => undefined });

/** Databases as far as the follower sees them: which folder, and whether closed. */
const fakeDb = (folder: string) => {
  const db = { description: folder, closed: false, close: async () => void (db.closed = true) };
  return db as unknown as Db & { closed: boolean };
};

t.test('the embedded follower opens the folder the pointer names, reuses what it has, closes only what it opened', async (t) => {
  t.equal(await firstFolder(app), app, 'no pointer: the served folder itself');
  const home = fakeDb(app);
  const opened: (Db & { closed: boolean })[] = [];
  const follower = folderFollower({
    folder: app,
    name: 'app',
    db: home,
    home: app,
    open: async (f) => {
      const db = fakeDb(f);
      opened.push(db);
      return db;
    },
    logger,
  });
  const first = await follower.locate(undefined);
  t.same({ schema: first.schema, db: first.db, at: first.embeddedProject }, { schema: 'app', db: home, at: app });
  t.equal(await follower.locate(first), first, 'nothing moved: the same placement');

  await promoteFolder(app, { folder: v2, schema: 'app-v2' });
  t.equal(await firstFolder(app), v2, 'a restarted idx-query opens the pointed folder first');
  const moved = await follower.locate(first);
  t.same({ schema: moved.schema, at: moved.embeddedProject }, { schema: 'app-v2', at: v2 });
  t.equal(opened.length, 1, "the new version's database is opened");
  t.equal(moved.db, opened[0]);
  t.equal(await follower.locate(moved), moved, 'and kept while the pointer stays');

  await promoteFolder(app, { folder: v2, schema: 'other' });
  const sameFolder = await follower.locate(moved);
  t.equal(sameFolder.db, moved.db, 'another schema of the same folder: the same database');
  t.equal(opened.length, 1);

  await follower.release!(moved);
  t.equal(opened[0]!.closed, true, 'a database it opened is closed on release');
  await promoteFolder(app, { folder: app, schema: 'app' });
  const back = await follower.locate(sameFolder);
  t.equal(back.db, home, 'back home: the database run-query opened');
  await follower.release!(back);
  t.equal(home.closed, false, "run-query's own database is not closed by the follower");
});
