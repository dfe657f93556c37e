// idx's install script, after isolated-vm is compiled: makes what the first run would otherwise make
// (apps/cli/warm-caches.ts). Best effort: a failure leaves it to the first run and never fails the install.
import { load } from './launch.js';

// a checkout warms what its sources run (npm start), an installed package what its dist/ runs
delete process.env.IDX_COMPILED;
try {
  const { warmCaches } = await load('apps/cli/warm-caches');
  const seconds = await warmCaches();
  process.stdout.write(`idx: made the embedded database's template and the sandbox's bundles (${seconds.toFixed(1)} s)\n`);
} catch (err) {
  process.stdout.write(`idx: the embedded database's template and the sandbox's bundles are left to the first run (${err?.message ?? err})\n`);
}
