import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { LOCK_FILE } from '../infra/postgres/acquire-writer-lock.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { BIN, programEnv } from './support/idx-programs.ts';
import { copyProject } from './support/project-copies.ts';
import { freePortGuess, servedPort } from './support/node-ports.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { gql } from './support/query-client.ts';

/**
 * `idx-node … | head`: the reader of a program's output goes away while it runs. Its lines are
 * dropped from then on; it keeps working and still stops cleanly on SIGTERM, releasing its port and
 * the writer lock (issue 27: an unhandled EPIPE left the node deaf to signals until SIGKILL).
 */
exitWhenDone();

const { anvil, workload, built } = await setupErc20Chain(t, 10);
const dir = await copyProject(t, built);
const schema = 'closed_output';
const lockFile = join(dir, '.idx-data', LOCK_FILE);

interface Started {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** what it printed, on the streams still read */
  output: () => string;
}

/** An idx program as a user runs it, stdout and stderr piped to the test; SIGKILLed on teardown if still running. */
function start(program: string, args: readonly string[]): Started {
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN(program), ...args], { env: programEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, exited, output: () => output };
}

/** The first match of `pattern` in what `p` prints, once it prints it. */
async function printed(p: Started, pattern: RegExp, ms = 30_000): Promise<RegExpExecArray> {
  for (const until = Date.now() + ms; Date.now() < until;) {
    const m = pattern.exec(p.output());
    if (m) return m;
    if (p.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never printed ${pattern}:\n${p.output()}`);
}

/** The read ends of the pipes closed, as `head` does once it has its lines. */
function closeReadEnds(p: Started, streams: ('stdout' | 'stderr')[]): void {
  for (const s of streams) p.child[s].destroy();
}

/** SIGTERM, then the exit, or `undefined` when the program is still running after `ms`. */
async function terminate(p: Started, ms: number) {
  p.child.kill('SIGTERM');
  return Promise.race([p.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
}

async function lastProcessed(port: number): Promise<number | undefined> {
  const meta = (await fetch(`http://127.0.0.1:${port}/meta`, { signal: AbortSignal.timeout(2_000) })
    .then((r) => r.json())
    .catch(() => undefined)) as { lastProcessedHeight?: number } | undefined;
  return meta?.lastProcessedHeight;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, () => server.close(() => done(true)));
  });
}

const nodeArgs = ['-f', dir, '--network-endpoint', anvil.url, '--db-schema', schema, '--batch-size', '2'];

t.test('idx-node whose stdout reader is gone keeps indexing and stops on SIGTERM, freeing its port and the lock', async (t) => {
  // --debug mapping: a line per transfer, so the node writes plenty after the pipe is closed
  const node = start('idx-node', [...nodeArgs, '-p', String(freePortGuess()), '--debug', 'mapping']);
  await printed(node, /serving \/health.* on http:\/\/localhost:\d+/);
  const port = servedPort(node.output())!;
  closeReadEnds(node, ['stdout']);

  let height: number | undefined;
  for (const until = Date.now() + 20_000; Date.now() < until && node.child.exitCode === null;) {
    height = await lastProcessed(port);
    if (height !== undefined && height >= workload.toBlock) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  t.equal(height, workload.toBlock, 'it indexed to the end with nobody reading its output');

  const exit = await terminate(node, 10_000);
  t.same(exit, { code: 0, signal: null }, 'SIGTERM stops it within 10 s, exit 0');
  t.ok(await portFree(port), `port ${port} is free`);
  t.notOk(existsSync(lockFile), 'the writer lock is released');
  t.notMatch(node.output(), /EPIPE|Unhandled|uncaught/i, 'nothing on stderr about the closed pipe');
});

t.test('idx-query with stdout and stderr closed answers and stops on SIGTERM', async (t) => {
  // a second node on the same folder opens its database: the first one left the lock free
  const node = start('idx-node', [...nodeArgs, '-p', String(freePortGuess())]);
  t.teardown(async () => {
    if ((await terminate(node, 10_000)) === undefined) node.child.kill('SIGKILL');
  });
  await printed(node, /serving the embedded database to idx-query/);

  // --log-level debug: a line per request, written to the closed pipes
  const query = start('idx-query', ['-f', dir, '-n', schema, '--port', String(freePortGuess()), '--log-level', 'debug']);
  const url = (await printed(query, /serving GraphQL .* at (http:\/\/localhost:\d+)\//))[1]!;
  closeReadEnds(query, ['stdout', 'stderr']);
  for (let i = 0; i < 3; i++) {
    const answer = await gql(url, '{ transfers(first: 1) { totalCount } }').catch((err: Error) => ({ status: 0, data: undefined, errors: [err.message] }));
    t.ok((answer.data?.transfers?.totalCount ?? 0) > 0, `request ${i + 1} answered`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const exit = await terminate(query, 10_000);
  t.same(exit, { code: 0, signal: null }, 'SIGTERM stops it within 10 s, exit 0');
});
