import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createPreludeCache } from './create-prelude-cache.ts';

t.test('the sandbox runtime is bundled once and kept where only this user can write: it runs in every sandbox', async (t) => {
  // a temp folder of its own, so the bundle is made here and where it lands is seen
  const temp = mkdtempSync(join(tmpdir(), 'idx-temp-'));
  const given = process.env.TMPDIR;
  process.env.TMPDIR = temp;
  t.teardown(() => {
    if (given === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = given;
    rmSync(temp, { recursive: true, force: true });
  });
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
