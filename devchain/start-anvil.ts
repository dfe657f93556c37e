import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { IdxError } from '../domain/errors.ts';

export interface AnvilOptions {
  chainId?: number;
  /** seconds between blocks; absent = a block per transaction (automine) */
  blockTime?: number;
  /** no blocks until `evm_mine`/`anvil_mine` */
  noMining?: boolean;
  /** dev accounts to create (anvil's default is 10) */
  accounts?: number;
  /** more anvil flags, as given */
  args?: readonly string[];
  /** how long to wait for anvil to answer */
  startTimeoutMs?: number;
  /** an anvil binary to run instead of the npm package's (e.g. one installed by foundryup) */
  binary?: string;
  /** address to listen on (default 127.0.0.1; 0.0.0.0 in a container that serves other containers) */
  host?: string;
  /** port to listen on; absent = a free one */
  port?: number;
  /** how long `stop()` lets anvil exit before killing it (default 3 s); longer when it dumps a large state on exit (--dump-state) */
  stopTimeoutMs?: number;
}

export interface Anvil {
  url: string;
  port: number;
  /** stops anvil and waits for it to exit; safe to call twice */
  stop(): Promise<void>;
}

/** anvil's ten dev accounts come from this mnemonic; the first is funded and unlocked */
export const ANVIL_DEV_ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/** Path of the anvil binary that the `@foundry-rs/anvil-linux-amd64` npm package ships. */
export function findAnvilBinary(): string {
  const require = createRequire(import.meta.url);
  let pkg: string;
  try {
    pkg = require.resolve('@foundry-rs/anvil-linux-amd64/package.json');
  } catch {
    throw new IdxError(
      'ANVIL_NOT_INSTALLED',
      `the anvil binary is not installed: the optional dependency @foundry-rs/anvil-linux-amd64 is missing (it exists for Linux x64 only; this is ${process.platform} ${process.arch}). ` +
        'Run `npm ci` on Linux x64, or point the node at another chain with --network-endpoint.',
    );
  }
  const bin = join(dirname(pkg), 'bin', 'anvil');
  if (!existsSync(bin)) throw new IdxError('ANVIL_NOT_INSTALLED', `@foundry-rs/anvil-linux-amd64 is installed but has no ${bin}; reinstall it with \`npm ci\``);
  return bin;
}

/**
 * Starts anvil (on a free local port unless `port` is given) and resolves once it answers JSON-RPC. anvil cannot pick its
 * own port (`--port 0` is refused), so we pick one and retry when another process takes it first.
 *
 * anvil runs under a small `sh` watchdog that holds a pipe from us: when this process ends in any
 * way, SIGKILL included, the pipe closes and the watchdog kills anvil, so no chain is left behind.
 * The child is unref'd, so a forgotten `stop()` does not keep the process alive either.
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const bin = options.binary ?? findAnvilBinary();
  const args = ['--host', options.host ?? '127.0.0.1', '--silent'];
  if (options.chainId !== undefined) args.push('--chain-id', String(options.chainId));
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  if (options.noMining) args.push('--no-mining');
  if (options.accounts !== undefined) args.push('--accounts', String(options.accounts));
  args.push(...(options.args ?? []));

  let lastError = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = options.port ?? (await freePort());
    const started = await launch(bin, [...args, '--port', String(port)], port, options.startTimeoutMs ?? 15_000, options.stopTimeoutMs ?? 3_000);
    if ('anvil' in started) return started.anvil;
    lastError = started.error;
    if (options.port !== undefined || !/address already in use|os error 98/i.test(started.error)) break;
  }
  throw new IdxError('ANVIL_START_FAILED', `anvil did not start: ${lastError}`);
}

/**
 * `sh -c WATCHDOG <program> <args…>` with stdin a pipe from this process: runs the program, and kills
 * it when the pipe closes (this process ended, in any way). `$0` is the program; fd 3 is our pipe,
 * read only by the watchdog subshell.
 */
export const WATCHDOG =
  'exec 3<&0; "$0" "$@" </dev/null 3<&- & pid=$!; (read _ <&3; kill $pid 2>/dev/null) & watcher=$!; wait $pid; code=$?; kill $watcher 2>/dev/null; exit $code';

async function launch(bin: string, args: string[], port: number, timeoutMs: number, stopTimeoutMs: number): Promise<{ anvil: Anvil } | { error: string }> {
  const child = spawn('sh', ['-c', WATCHDOG, bin, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (!hasExited) {
    if (await answers(url)) {
      unref(child);
      let stopping: Promise<void> | undefined;
      return {
        anvil: {
          url,
          port,
          stop() {
            stopping ??= stop(child, exited, stopTimeoutMs);
            return stopping;
          },
        },
      };
    }
    if (Date.now() > deadline) {
      await stop(child, exited, stopTimeoutMs);
      return { error: `no answer on ${url} within ${timeoutMs} ms${stderr ? `: ${stderr.trim()}` : ''}` };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const code = await exited;
  return { error: stderr.trim() || `anvil exited with code ${code}` };
}

async function stop(child: ChildProcess, exited: Promise<unknown>, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

function unref(child: ChildProcess): void {
  child.unref();
  for (const s of [child.stdin, child.stderr]) (s as unknown as { unref?: () => void } | null)?.unref?.();
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      signal: AbortSignal.timeout(1_000),
    });
    return res.ok && 'result' in ((await res.json()) as object);
  } catch {
    return false;
  }
}

/** A port no one listens on now, on 127.0.0.1 (the kernel's choice; free until someone takes it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
