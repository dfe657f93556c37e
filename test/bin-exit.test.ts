import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { REPO } from './support/idx-programs.ts';

/**
 * How every idx program ends (bin/launch.js exitWhenIdle): with its code once the event loop is
 * empty (isolated-vm finishes tearing a disposed isolate down first: a process.exit() racing that
 * crashed `idx-node test` with SIGSEGV under load), and never kept alive by a handle left open.
 */
const launch = pathToFileURL(`${REPO}/bin/launch.js`).href;

async function run(body: string): Promise<{ code: number | null; signal: string | null; ms: number; output: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', `import { exitWhenIdle } from '${launch}';\n${body}`], {
    env: { PATH: process.env.PATH },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  return { code, signal, ms: performance.now() - started, output };
}

t.test('the code, after the work still pending on the loop', async (t) => {
  const r = await run(`setTimeout(() => console.log('pending work done'), 300); exitWhenIdle(3);`);
  t.equal(r.code, 3, r.output);
  t.match(r.output, /pending work done/, 'what was pending ran before the exit');
});

t.test('a handle left open does not keep the program alive', async (t) => {
  const r = await run(`setInterval(() => undefined, 1000); exitWhenIdle(0, 500);`);
  t.equal(r.code, 0, r.output);
  t.ok(r.ms < 5000, `exited after ${Math.round(r.ms)} ms`);
});

t.test('isolates disposed just before the end: no crash in their teardown', async (t) => {
  // several, each disposed with a call still in flight: their teardowns run on isolated-vm's threads
  // (with process.exit() in place of exitWhenIdle, 9 runs in 10 of this ended in SIGSEGV)
  for (let round = 0; round < 3; round++) {
    const r = await run(`
      const { default: ivm } = await import('isolated-vm');
      const isolates = [];
      for (let i = 0; i < 8; i++) {
        const isolate = new ivm.Isolate({ memoryLimit: 32 });
        const context = await isolate.createContext();
        await context.eval('let a = []; for (let i = 0; i < 1e5; i++) a.push({ i }); a.length');
        isolates.push([isolate, context]);
      }
      for (const [isolate, context] of isolates) {
        context.eval('a.length').catch(() => undefined);
        isolate.dispose();
      }
      exitWhenIdle(0);
    `);
    t.same({ code: r.code, signal: r.signal }, { code: 0, signal: null }, r.output);
  }
});
