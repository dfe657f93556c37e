import t from 'tap';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPackage, PACKAGE_NAME } from './find-package.ts';

t.test('finds idx-stack above the given folder, skipping other packages on the way', (t) => {
  const root = t.testdir({
    'package.json': JSON.stringify({ name: PACKAGE_NAME, version: '1.2.3' }),
    dist: { infra: { package: {} }, 'package.json': JSON.stringify({ type: 'module' }) },
    // the unrelated npm package called `idx` must not be taken for idx
    node_modules: { idx: { lib: {}, 'package.json': JSON.stringify({ name: 'idx', version: '3.0.3' }) } },
  });
  t.same(findPackage(join(root, 'dist', 'infra', 'package')), { root, version: '1.2.3' });
  t.same(findPackage(join(root, 'node_modules', 'idx', 'lib')), { root, version: '1.2.3' });
  t.end();
});

t.test('the checkout itself is the package named in package.json', (t) => {
  const pkg = findPackage();
  const manifest = JSON.parse(readFileSync(join(pkg.root, 'package.json'), 'utf8')) as { name: string; version: string };
  t.equal(manifest.name, PACKAGE_NAME);
  t.equal(pkg.version, manifest.version);
  t.end();
});

t.test('no idx package above: an error saying idx is incomplete', (t) => {
  // outside the checkout, which would be found above a t.testdir()
  const dir = mkdtempSync(join(tmpdir(), 'idx-find-package-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'a', 'b'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'idx' }));
  t.throws(() => findPackage(join(dir, 'a', 'b')), { code: 'PACKAGE_NOT_FOUND' });
  t.end();
});
