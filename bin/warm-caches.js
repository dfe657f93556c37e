// The last step of idx's install script (vendor/isolated-vm/build.mjs runs it): makes what the first
// run would otherwise make, so that `npm start` and the first index start as fast as the next. In a
// checkout, dist/ is compiled unless it is current (a bin then runs it: bin/launch.js), and the
// embedded database's template and the sandbox's bundles are made in the private cache folder
// (apps/cli/warm-caches.ts); an installed package ships dist/ and makes the template. Best effort:
// a failure leaves it to the first run (or to `npm test`'s before step) and never fails the install.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const checkout = existsSync(`${root}scripts/compile.ts`);
if (checkout) {
  const compiled = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/compile.ts', '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (compiled.status !== 0) process.stdout.write('idx: dist/ is left to compile (`npm run build`); the programs run the sources meanwhile\n');
}
if (checkout || existsSync(`${root}dist`)) {
  // a checkout warms what its sources run (tests load them), an installed package what its dist/ runs
  process.env.IDX_COMPILED = checkout ? '0' : '1';
  try {
    const { load } = await import('./launch.js');
    const { warmCaches } = await load('apps/cli/warm-caches');
    const seconds = await warmCaches();
    process.stdout.write(`idx: made the embedded database's template and the sandbox's bundles (${seconds.toFixed(1)} s)\n`);
  } catch (err) {
    process.stdout.write(`idx: the embedded database's template and the sandbox's bundles are left to the first run (${err?.message ?? err})\n`);
  }
}
