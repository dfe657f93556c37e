import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import t from 'tap';
import { DEPLOYMENT_FILE, foldersServing, promoteFolder, readDeploymentFile, servedFolder, watchDeploymentFile } from './deployment-file.ts';

const root = await mkdtemp(join(tmpdir(), 'idx-deployment-file-'));
t.teardown(() => rm(root, { recursive: true, force: true }));
const folder = async (name: string) => {
  const dir = join(root, name);
  await mkdir(join(dir, '.idx-data'), { recursive: true });
  return dir;
};
const [app, v2, v3] = [await folder('app'), await folder('app-v2'), await folder('app-v3')];

t.test('a deployment is a folder with an embedded database, by its path from the current folder', async (t) => {
  t.equal(await servedFolder('app', root), app);
  t.equal(await servedFolder(relative(process.cwd(), app)), app);
  await t.rejects(servedFolder('nowhere', root), { code: 'DEPLOYMENT_NOT_FOUND', message: /nowhere has no embedded database \(\.idx-data\)/ });
});

t.test('promotions move the pointer and keep the one before; force-clean asks who is served', async (t) => {
  t.equal(await readDeploymentFile(app), undefined, 'no pointer: the folder serves its own schema');
  const first = await promoteFolder(app, { folder: v2, schema: 'app-v2' });
  t.same({ live: first.live, previous: first.previous }, { live: { folder: v2, schema: 'app-v2' }, previous: null });
  t.same(await readDeploymentFile(app), first, 'read back as written');
  t.same(await foldersServing({ folder: v2, schema: 'app-v2' }), [app]);
  t.same(await foldersServing({ folder: v2, schema: 'other' }), [], 'another schema of the folder is not served');

  const again = await promoteFolder(app, { folder: v2, schema: 'app-v2' });
  t.same(again.previous, null, 'promoting the live version again keeps what was before it');
  const third = await promoteFolder(app, { folder: v3, schema: 'app-v3' });
  t.same(third.previous, { folder: v2, schema: 'app-v2' });
  t.same(await foldersServing({ folder: v2, schema: 'app-v2' }), [], 'the version left is no longer served');
  t.same(await foldersServing({ folder: v3, schema: 'app-v3' }), [app]);
  const back = await promoteFolder(app, { folder: app, schema: 'app' });
  t.same(back.live, { folder: app, schema: 'app' }, 'back to the folder itself');
  t.same(await foldersServing({ folder: app, schema: 'app' }), [app]);
});

t.test('a pointer file without a target is refused by name', async (t) => {
  const broken = await folder('broken');
  await writeFile(join(broken, '.idx-data', DEPLOYMENT_FILE), '{"live":{}}');
  await t.rejects(readDeploymentFile(broken), { code: 'DEPLOYMENT_FILE_INVALID', message: /idx-deployment\.json names no folder and schema/ });
  t.same(await foldersServing({ folder: broken, schema: 'x' }), [], 'a folder never promoted to serves nothing');
  await writeFile(join(broken, '.idx-data', DEPLOYMENT_FILE), '{"live": {"fold');
  await t.rejects(readDeploymentFile(broken), { code: 'DEPLOYMENT_FILE_INVALID' }, 'a file cut short too');
  const mended = await promoteFolder(broken, { folder: v2, schema: 'app-v2' });
  t.same(
    { live: mended.live, previous: mended.previous },
    { live: { folder: v2, schema: 'app-v2' }, previous: null },
    'promoting again mends it, as the error says',
  );
  t.same(await readDeploymentFile(broken), mended);
});

t.test('the watch hears a promotion written over the file', async (t) => {
  const served = await folder('watched');
  let heard = 0;
  const errors: Error[] = [];
  const stop = watchDeploymentFile(
    served,
    () => heard++,
    (err) => errors.push(err),
  );
  t.teardown(stop);
  await promoteFolder(served, { folder: v2, schema: 'app-v2' });
  const until = Date.now() + 5000;
  while (heard === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  t.ok(heard > 0, 'heard');
  t.same(errors, []);
  t.match(JSON.parse(await readFile(join(served, '.idx-data', DEPLOYMENT_FILE), 'utf8')), { name: served, live: { folder: v2 } });
  const missing = watchDeploymentFile(
    join(root, 'none'),
    () => undefined,
    (err) => errors.push(err),
  );
  missing();
  t.match(errors, [{ code: 'ENOENT' }], 'a folder that is not there is an error to log, not a crash');
});
