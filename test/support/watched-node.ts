import { spawn } from 'node:child_process';
import { BIN, programEnv } from './idx-programs.ts';
import { freePortGuess, servedPort } from './node-ports.ts';

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** the last `lastProcessedHeight` /meta reported */
  lastSeen?: number;
  /** the run outlived `deadlineMs` and was killed: `output` says where it was */
  timedOut?: true;
}

/**
 * `idx-node` spawned as a user runs it, its output collected, and `onHeight` told every
 * `lastProcessedHeight` its /meta reports, polled every `everyMs` on the port it says it serves.
 */
export function spawnWatchedNode(
  dir: string,
  env: Record<string, string | undefined>,
  args: readonly string[],
  onHeight: (height: number) => void,
  everyMs: number,
) {
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN('idx-node'), '-f', dir, '-p', String(freePortGuess()), ...args], {
    env: programEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const poll = setInterval(async () => {
    const port = servedPort(output);
    if (port === undefined) return;
    const meta = (await fetch(`http://127.0.0.1:${port}/meta`, { signal: AbortSignal.timeout(5_000) })
      .then((r) => r.json())
      .catch(() => undefined)) as { lastProcessedHeight?: number } | undefined;
    if (meta?.lastProcessedHeight !== undefined) onHeight(meta.lastProcessedHeight);
  }, everyMs);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      resolve({ code, signal });
    });
  });
  return { child, output: () => output, exited };
}

/**
 * Runs `idx-node` as a user would, watching /meta: SIGTERM once `until` is processed, SIGKILL once
 * `killAt` is; otherwise it runs until it exits by itself. A run still going after `deadlineMs` is
 * killed and marked `timedOut`, so a stuck node fails its test with its log instead of the whole
 * file timing out silently.
 */
export async function runNodeCli(
  dir: string,
  env: Record<string, string | undefined>,
  args: readonly string[],
  opts: {
    until?: number;
    killAt?: number;
    /** `killAt` waits for this too: the node is killed once both have come (a test's checks on the running node done) */
    killAfter?: Promise<unknown>;
    deadlineMs?: number;
  } = {},
): Promise<CliRun> {
  let lastSeen: number | undefined;
  let killable = opts.killAfter === undefined;
  void opts.killAfter?.then(() => (killable = true));
  let stopping = false;
  let timedOut = false;
  const node = spawnWatchedNode(
    dir,
    env,
    args,
    (h) => {
      lastSeen = h;
      if (opts.killAt !== undefined && killable && h >= opts.killAt) node.child.kill('SIGKILL');
      // Once, as a service manager does: a second signal means "quit at once".
      else if (opts.until !== undefined && h >= opts.until && !stopping) {
        stopping = true;
        node.child.kill('SIGTERM');
      }
    },
    20,
  );
  const deadline = setTimeout(() => {
    timedOut = true;
    node.child.kill('SIGKILL');
  }, opts.deadlineMs ?? 150_000);
  const { code, signal } = await node.exited;
  clearTimeout(deadline);
  const run: CliRun = { code, signal, output: node.output() };
  // set by the watcher and the deadline, in callbacks
  if (lastSeen !== undefined) run.lastSeen = lastSeen;
  if (timedOut) run.timedOut = true;
  return run;
}
