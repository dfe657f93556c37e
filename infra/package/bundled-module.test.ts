import t from 'tap';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundledModule } from './bundled-module.ts';

t.test('a compiled module the build bundled starts from its bundle; anything else from itself', (t) => {
  const root = t.testdir({
    dist: {
      apps: { node: { 'fetch-worker.js': '', 'other-worker.js': '' } },
      bundle: { 'apps.node.fetch-worker.js': '' },
    },
    src: { 'fetch-worker.ts': '' },
  });
  const url = (...p: string[]) => pathToFileURL(join(root, ...p));
  const worker = url('dist', 'apps', 'node', 'fetch-worker.js');
  t.equal(bundledModule(worker, {}).href, url('dist', 'bundle', 'apps.node.fetch-worker.js').href);
  t.equal(bundledModule(worker, { IDX_BUNDLE: '0' }).href, worker.href, 'IDX_BUNDLE=0: the unbundled module');
  const notBundled = url('dist', 'apps', 'node', 'other-worker.js');
  t.equal(bundledModule(notBundled, {}).href, notBundled.href, 'no bundle of it: itself');
  const source = url('src', 'fetch-worker.ts');
  t.equal(bundledModule(source, {}).href, source.href, 'the TypeScript sources: itself');
  const inBundle = url('dist', 'bundle', 'apps.node.fetch-worker.js');
  t.equal(bundledModule(inBundle, {}).href, inBundle.href);
  t.end();
});
