import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { IdxError } from '../domain/errors.ts';
import { DEV_ACCOUNTS, type SubstrateDevChain } from './start-substrate-chain.ts';
import { WATCHDOG } from './start-anvil.ts';

export interface ChopsticksProcessOptions {
  /**
   * Folders whose node_modules may hold `@acala-network/chopsticks` and
   * `@substrate/connect-known-chains`, looked in in this order (a project's own dev dependencies
   * first, then idx's).
   */
  from: readonly string[];
  host?: string;
  port: number;
  /** how long to wait for the chain to answer (chopsticks builds block 1 first: seconds, more on a busy machine) */
  startTimeoutMs?: number;
  /** chopsticks' own output (warnings and errors) */
  output?: (text: string) => void;
}

/** What `npm install` of a Substrate project made by `idx init` puts in its node_modules for this. */
export const CHOPSTICKS_PACKAGES = '@acala-network/chopsticks@1.5.1 @substrate/connect-known-chains@1.10.3';

/**
 * The same chain as startSubstrateChain (Rococo Asset Hub's runtime from its genesis spec, the dev
 * accounts funded, a block only when asked), run by chopsticks' own command in a child process.
 * For `idx dev-chain`: chopsticks then comes from the project's node_modules, with its own copies
 * of @polkadot/*, which must not meet idx's in one process. The child dies with this process.
 */
export async function startChopsticksProcess(options: ChopsticksProcessOptions): Promise<SubstrateDevChain> {
  // its exports map has no ./package.json: the folder is found above its main module
  const cli = findIn(options.from, '@acala-network/chopsticks', (main) => join(packageFolder(main, '@acala-network/chopsticks'), 'chopsticks.cjs'));
  const spec = findIn(options.from, '@substrate/connect-known-chains/rococo_v2_2_asset_hub', (file) => file);
  if (cli === undefined || spec === undefined) {
    throw new IdxError(
      'CHOPSTICKS_NOT_INSTALLED',
      `the local Substrate chain runs chopsticks, which is not installed here (looked in ${options.from.join(', ')}): ` +
        `run \`npm install\` in a project made by \`idx init --network substrate\` (it lists chopsticks as a dev dependency), ` +
        `or \`npm install --save-dev ${CHOPSTICKS_PACKAGES}\` in your project`,
    );
  }
  const { chainSpec } = (await import(pathToFileURL(spec).href)) as { chainSpec: string };
  const dir = await mkdtemp(join(tmpdir(), 'idx-chopsticks-'));
  const host = options.host ?? '127.0.0.1';
  const funded = { providers: 1, data: { free: (10n ** 18n).toString() } };
  await writeFile(join(dir, 'spec.json'), chainSpec);
  await writeFile(
    join(dir, 'chopsticks.yml'),
    stringify({
      genesis: join(dir, 'spec.json'),
      host,
      port: options.port,
      'build-block-mode': 'Manual',
      'import-storage': { System: { Account: Object.values(DEV_ACCOUNTS).map((a) => [[a], funded]) } },
    }),
  );

  // a line per block is noise: warnings and errors only (chopsticks reads LOG_LEVEL)
  const child = spawn('sh', ['-c', WATCHDOG, process.execPath, cli, '--config', join(dir, 'chopsticks.yml')], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
  });
  let tail = '';
  const onOutput = (chunk: Buffer) => {
    const text = chunk.toString();
    tail = (tail + text).slice(-2000);
    options.output?.(text);
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const close = async () => {
    if (!hasExited) {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const httpUrl = `http://127.0.0.1:${options.port}`;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const post = () =>
      fetch(httpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    // chopsticks' server closes an idle connection as a request may reuse it: once more on a new one
    const res = await post().catch(post);
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new IdxError('RPC_ERROR', `chopsticks ${method}: ${body.error.message}`);
    return body.result as T;
  };
  const height = async () => Number((await rpc<{ number: string }>('chain_getHeader')).number);

  const deadline = Date.now() + (options.startTimeoutMs ?? 180_000);
  for (;;) {
    if (hasExited) {
      await close();
      throw new IdxError('CHOPSTICKS_START_FAILED', `chopsticks exited before its chain answered on ${httpUrl}: ${tail.trim() || 'no output'}`);
    }
    if (
      await height().then(
        () => true,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      await close();
      throw new IdxError(
        'CHOPSTICKS_START_FAILED',
        `chopsticks did not answer on ${httpUrl} within ${options.startTimeoutMs ?? 180_000} ms: ${tail.trim() || 'no output'}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  for (const s of [child, child.stdin, child.stdout, child.stderr]) (s as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    wsUrl: `ws://127.0.0.1:${options.port}`,
    httpUrl,
    async newBlocks(count = 1) {
      await rpc('dev_newBlock', [{ count }]);
    },
    height,
    close,
  };
}

/** The file `specifier` resolves to from the first folder of `folders` that has it, passed through `pick`. */
function findIn(folders: readonly string[], specifier: string, pick: (resolved: string) => string): string | undefined {
  for (const folder of folders) {
    try {
      const found = pick(createRequire(join(folder, 'package.json')).resolve(specifier));
      if (existsSync(found)) return found;
    } catch {
      // not installed there
    }
  }
  return undefined;
}

/** The folder above `file` whose package.json names `name` (or `file`'s own folder when none does). */
function packageFolder(file: string, name: string): string {
  for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === name) return dir;
  }
  return dirname(file);
}
