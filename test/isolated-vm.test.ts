import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import { REPO } from './support/idx-programs.ts';

/**
 * The sandbox runs on the patched isolated-vm of vendor/isolated-vm: upstream's 5.0.4 wakes the
 * thread waiting in `applySyncPromise` after unlocking, and idx-node once hung there for 14 minutes.
 */
const require = createRequire(join(REPO, 'package.json'));

t.test('the installed isolated-vm is the vendored release, its patches applied', async (t) => {
  const manifest = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8'));
  const spec: string = manifest.dependencies['isolated-vm'];
  const wanted = /isolated-vm-([^/]+)\.tgz$/.exec(spec)?.[1];
  t.match(spec, /^file:vendor\/isolated-vm\//, 'package.json installs it from vendor/isolated-vm');
  t.equal(require('isolated-vm/package.json').version, wanted, 'node_modules holds that tarball (else: npm install)');

  const patch = await readFile(join(REPO, 'vendor/isolated-vm/async-wait-notify-under-lock.patch'), 'utf8');
  const file = /^\+\+\+ b\/(\S+)/m.exec(patch)![1];
  const installed = await readFile(join(REPO, 'node_modules/isolated-vm', file), 'utf8');
  const added = patch
    .split('\n')
    .filter((line) => line.startsWith('+') && !line.startsWith('+++') && line.trim() !== '+')
    .map((line) => line.slice(1));
  t.ok(added.length > 0, 'the patch adds lines');
  t.same(
    added.filter((line) => !installed.includes(line)),
    [],
    `every line the patch adds is in the installed ${file}`,
  );
});

t.test('awaited host calls answered at once, in a microtask or on the next turn: every one returns', async (t) => {
  // In a child, so that a hang is a timeout here rather than a stuck test runner.
  const calls = 50_000;
  const body = `
    const ivm = require('isolated-vm');
    const isolate = new ivm.Isolate({ memoryLimit: 32 });
    const context = isolate.createContextSync();
    let k = 0;
    const host = new ivm.Reference((x) => {
      const how = k++ % 3;
      if (how === 0) return Promise.resolve(x + 1);
      if (how === 1) return new Promise((r) => setImmediate(() => r(x + 1)));
      return new Promise((r) => queueMicrotask(() => r(x + 1)));
    });
    context.global.setSync('host', host);
    context.eval('let s = 0; for (let i = 0; i < ${calls}; i++) s += host.applySyncPromise(undefined, [i]); s')
      .then((s) => { console.log(String(s)); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['--no-node-snapshot', '-e', body], { cwd: REPO, env: { PATH: process.env.PATH } });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  clearTimeout(timer);
  t.same({ code, signal }, { code: 0, signal: null }, output);
  t.equal(output.trim(), String((calls * (calls + 1)) / 2), 'each call got its own answer');
});
