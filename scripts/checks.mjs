// `npm test`'s first step: tap built for the .taprc plugins (scripts/build-tap-plugins.mjs, before the typecheck,
// which reads tap's types), then the typecheck and the lint's two halves (`npm run lint`: eslint, prettier's check)
// side by side, since each runs on a single thread; fails when any fails, with every output shown.
import { spawn, spawnSync } from 'node:child_process';

if (spawnSync(process.execPath, ['scripts/build-tap-plugins.mjs'], { stdio: 'inherit' }).status !== 0) {
  process.stdout.write('tap build: failed\n');
  process.exit(1);
}

const run = (script) =>
  new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ script, code, output }));
  });

const results = await Promise.all([run('typecheck'), run('lint:code'), run('lint:format')]);
for (const r of results) {
  const shown = r.output
    .split('\n')
    .filter((l) => !/^npm warn/.test(l))
    .join('\n')
    .trim();
  if (shown) process.stdout.write(`${shown}\n`);
  process.stdout.write(`${r.script}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`}\n`);
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
