import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Teardown } from '../../test/support/teardown.ts';
import { createPreludeCache } from './create-prelude-cache.ts';
import { sandboxLibraries } from './families/registry.ts';

/** A temp folder of the test's own (TMPDIR), so what is bundled is made there and where it lands is seen. */
function ownTempFolder(t: Teardown): string {
  const temp = mkdtempSync(join(tmpdir(), 'idx-temp-'));
  const given = process.env.TMPDIR;
  process.env.TMPDIR = temp;
  t.teardown(() => {
    if (given === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = given;
    rmSync(temp, { recursive: true, force: true });
  });
  return temp;
}

t.test('the sandbox runtime is bundled once and kept where only this user can write: it runs in every sandbox', async (t) => {
  const temp = ownTempFolder(t);
  t.match(await createPreludeCache().code(), /install/, 'the runtime script');
  const own = `idx-${process.getuid?.()}`;
  t.same(
    (await readdir(temp)).filter((n) => n.startsWith('idx-sandbox-')),
    [],
    'no bundle in the shared temp folder',
  );
  t.match(await readdir(join(temp, own)), [/^idx-sandbox-prelude-[0-9a-f]{16}\.js$/], 'kept in the private folder');
  t.equal((await stat(join(temp, own))).mode & 0o777, 0o700, 'which only this user may read or write');
});

t.test('compiled, the sandbox loads the bundles `npm run build` made: a first run on a new machine bundles nothing', async (t) => {
  const temp = ownTempFolder(t);
  // dist/ as the test suite's before step compiled it (scripts/compile.ts)
  const sandbox = new URL('../../dist/infra/sandbox/', import.meta.url);
  const compiled = (await import(new URL('create-prelude-cache.js', sandbox).href)) as typeof import('./create-prelude-cache.ts');
  const cache = compiled.createPreludeCache();
  t.equal(await cache.code(), await readFile(new URL('bundles/prelude.js', sandbox), 'utf8'), "the runtime is dist/'s");
  for (const library of sandboxLibraries) {
    t.equal(await cache.library(library), await readFile(new URL(`bundles/${library.name}.js`, sandbox), 'utf8'), `the ${library.name} library is dist/'s`);
  }
  const own = join(temp, `idx-${process.getuid?.()}`);
  t.same(existsSync(own) ? (await readdir(own)).filter((n) => n.startsWith('idx-sandbox-')) : [], [], 'and nothing is bundled into the cache');
});
