// `npm test`'s first step: tap built for the .taprc plugins (scripts/build-tap-plugins.mjs, before the typecheck,
// which reads tap's types), then, side by side (each runs on a single thread), the typecheck with eslint in one
// process over the same TypeScript programs (scripts/typecheck-and-lint.mjs; then dist/ compiled if stale, as
// `npm run typecheck` does) and prettier's check (`npm run lint:format`). Fails when any fails, with every output shown.
import { spawn, spawnSync } from 'node:child_process';

if (spawnSync(process.execPath, ['scripts/build-tap-plugins.mjs'], { stdio: 'inherit' }).status !== 0) {
  process.stdout.write('tap build: failed\n');
  process.exit(1);
}

/** Runs a command to its end, its output kept to be shown after the others'. */
const run = (name, command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ name, code, output }));
  });

const node = (name, ...args) => run(name, process.execPath, args);
const typecheckAndLint = async () => {
  // a young generation of 64 MB: TypeScript allocates much and briefly (31 CPU-s instead of 35)
  const checked = await node('typecheck and lint:code', '--max-semi-space-size=64', 'scripts/typecheck-and-lint.mjs');
  if (checked.code !== 0) return checked;
  const compiled = await node('typecheck and lint:code', '--import', 'tsx', 'scripts/compile.ts', '--type-checked', '--if-stale');
  return { ...compiled, output: checked.output + compiled.output };
};

const results = await Promise.all([typecheckAndLint(), run('lint:format', 'npm', ['run', '--silent', 'lint:format'])]);
for (const r of results) {
  const shown = r.output
    .split('\n')
    .filter((l) => !/^npm warn/.test(l))
    .join('\n')
    .trim();
  if (shown) process.stdout.write(`${shown}\n`);
  process.stdout.write(`${r.name}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`}\n`);
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
