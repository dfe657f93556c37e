import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { familyOfKinds, type ChainFamilyName } from '../../domain/chains/chain-family.ts';
import { IdxError } from '../../domain/errors.ts';
import { findPackage } from '../../infra/package/find-package.ts';
import { privateCacheDir } from '../../infra/files/private-cache-dir.ts';
import { writeWholeFile } from '../../infra/files/write-whole-file.ts';
import { loadProject, MANIFEST_FILE_NAMES } from '../../infra/project/load-project.ts';
import type { DevChain } from './families/cli-family.ts';
import { cliFamilies, DEFAULT_CLI_FAMILY } from './families/registry.ts';
import type { Reporter } from './reporter.ts';

export interface DevChainOptions {
  /** the project folder: its manifest gives the chain family and the port (default: the current folder) */
  location: string;
  network?: string;
  host: string;
  port?: number;
  /** seconds between the blocks made after the first ones; 0: none */
  blockTime: number;
  detach: boolean;
  stop: boolean;
  /** set by --detach for the process it starts: written once the chain is ready */
  readyFile?: string;
  reporter: Reporter;
}

interface Target {
  network: ChainFamilyName;
  /** the family's chain (families/registry.ts): where its starter expects it and how it starts */
  chain: DevChain;
  port: number;
  /** the project's folder, when there is a project (chopsticks is looked for in its node_modules first) */
  project?: string;
  /** what the user should know about the project and this chain */
  notes: string[];
}

/** What a running detached chain wrote: read by --stop and by a second --detach. */
interface RunningChain {
  pid: number;
  network: ChainFamilyName;
  url: string;
  log: string;
}

/**
 * `idx dev-chain`: a local chain for the project in the current folder, with what its starter
 * indexes on it (each family's, families/registry.ts: EVM: anvil, the ERC20 at the starter's
 * address and its transfers; Substrate: chopsticks running a real runtime, with transfers and
 * batch calls), every block final at once,
 * and a new block with more of the same every --block-time seconds. In the foreground until
 * Ctrl-C; with --detach in the background, returning once the chain is ready; --stop stops those.
 */
export async function devChain(options: DevChainOptions): Promise<void> {
  if (options.stop) return stopDetached(options);
  const target = await resolveTarget(options);
  if (options.detach) return startDetached(options, target);
  return runInForeground(options, target);
}

/** The family and port: the flags, else the project's manifest, else an EVM chain on 8545. */
async function resolveTarget(options: DevChainOptions): Promise<Target> {
  const folder = resolve(options.location);
  const notes: string[] = [];
  const hasManifest = MANIFEST_FILE_NAMES.some((name) => existsSync(join(folder, name)));
  let network = options.network as ChainFamilyName | undefined;
  let port = options.port;
  if (hasManifest) {
    const project = await loadProject(folder, { warnNodeOnly: () => {} }).catch((err: unknown) => {
      if (!(err instanceof IdxError)) throw err;
      notes.push(`the project's manifest could not be read (${err.message}); the chain does not depend on it`);
      return undefined;
    });
    if (project) {
      const family = familyOfKinds(
        project.manifest.dataSources.map((ds) => ds.kind),
        project.manifestPath,
      );
      network ??= family;
      const chain = await cliFamilies[network].devChain.load();
      const endpoint = project.manifest.network?.endpoints[0]?.url;
      const url = endpoint === undefined ? undefined : new URL(endpoint);
      const local = url !== undefined && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
      if (local && url.port !== '' && family === network) port ??= Number(url.port);
      if (endpoint !== undefined && !local)
        notes.push(`the project's network.endpoint is ${endpoint}: run idx-node with --network-endpoint <this chain's URL> to index this chain`);
      if (family === network) {
        const chainId = project.manifest.network?.chainId;
        if (chainId !== undefined && chainId.toLowerCase() !== chain.chainId)
          notes.push(`the project's network.chainId is ${chainId}, and this chain's is ${chain.chainId}: idx-node refuses a chain of another id`);
        notes.push(...chain.notes(project));
      }
      return { network, chain, port: port ?? cliFamilies[network].devChain.port, project: project.root, notes };
    }
  }
  network ??= DEFAULT_CLI_FAMILY;
  return { network, chain: await cliFamilies[network].devChain.load(), port: port ?? cliFamilies[network].devChain.port, notes };
}

function pace(options: DevChainOptions, target: Target): string {
  return options.blockTime > 0 ? `${target.chain.what} every ${options.blockTime} s` : 'no more blocks (--block-time 0)';
}

async function runInForeground(options: DevChainOptions, target: Target): Promise<void> {
  const say = (line: string) => options.reporter.info(line);
  for (const note of target.notes) options.reporter.warn(note);
  const chain = await target.chain.start(say, { host: options.host, port: target.port, project: target.project });
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  // the chain's child process does not keep this one alive: this does, until a signal
  const keepAlive = setInterval(() => {}, 3_600_000);
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearTimeout(timer);
    clearInterval(keepAlive);
    await chain.stop();
    if (options.readyFile !== undefined) await rm(options.readyFile, { force: true });
    say('the dev chain stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  const tick = async () => {
    try {
      await chain.tick();
    } catch (err) {
      if (!stopping) options.reporter.warn(`could not make the next block: ${(err as Error).message}`);
    }
    if (!stopping) timer = setTimeout(() => void tick(), options.blockTime * 1000);
  };
  if (options.blockTime > 0) timer = setTimeout(() => void tick(), options.blockTime * 1000);
  say(
    `the dev chain (${target.network}) is ready at ${chain.url}: ${pace(options, target)}; every block is final at once${options.readyFile ? '' : '; Ctrl-C stops it'}`,
  );
  if (options.readyFile !== undefined) {
    const running: RunningChain = { pid: process.pid, network: target.network, url: chain.url, log: join(options.readyFile, '..', 'chain.log') };
    // whole or not at all: `idx dev-chain --detach` parses it as soon as it exists
    await writeWholeFile(options.readyFile, JSON.stringify(running));
  }
}

/**
 * One folder per port under the user's private cache folder: the chain's log and, once it is ready,
 * chain.json, whose pid `--stop` kills; in the shared temp folder anyone could plant one naming any
 * of the user's processes.
 */
async function stateDir(port?: number): Promise<string> {
  return join(await privateCacheDir(), 'idx-dev-chain', ...(port === undefined ? [] : [String(port)]));
}

async function readRunning(dir: string): Promise<RunningChain | undefined> {
  try {
    const running = JSON.parse(await readFile(join(dir, 'chain.json'), 'utf8')) as RunningChain;
    process.kill(running.pid, 0);
    return running;
  } catch {
    return undefined;
  }
}

async function startDetached(options: DevChainOptions, target: Target): Promise<void> {
  const dir = await stateDir(target.port);
  const already = await readRunning(dir);
  if (already !== undefined) {
    throw new IdxError(
      'DEV_CHAIN_RUNNING',
      `a dev chain (${already.network}) already runs at ${already.url} (pid ${already.pid}): use it, or stop it with \`idx dev-chain --stop\``,
    );
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const log = join(dir, 'chain.log');
  const readyFile = join(dir, 'chain.json');
  const fd = openSync(log, 'a');
  const args = [
    '--no-node-snapshot',
    join(findPackage().root, 'bin', 'idx.js'),
    'dev-chain',
    '--location',
    resolve(options.location),
    '--network',
    target.network,
    '--host',
    options.host,
    '--port',
    String(target.port),
    '--block-time',
    String(options.blockTime),
    '--ready-file',
    readyFile,
  ];
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exit: number | null | undefined;
  child.once('exit', (code) => (exit = code));
  const deadline = Date.now() + 300_000;
  while (!existsSync(readyFile)) {
    if (exit !== undefined || Date.now() > deadline) {
      if (exit === undefined) child.kill('SIGTERM');
      const output = await readFile(log, 'utf8').catch(() => '');
      throw new IdxError(
        'DEV_CHAIN_START_FAILED',
        `the dev chain did not start${exit === undefined ? ' within 5 minutes' : ` (exit code ${exit})`}:\n${output.trim().split('\n').slice(-20).join('\n')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.unref();
  const running = JSON.parse(await readFile(readyFile, 'utf8')) as RunningChain;
  options.reporter.info((await readFile(log, 'utf8')).trimEnd());
  options.reporter.info(`it runs in the background (pid ${running.pid}); its log: ${log}\nstop it with: idx dev-chain --stop`);
}

async function stopDetached(options: DevChainOptions): Promise<void> {
  const root = await stateDir();
  const ports = options.port !== undefined ? [String(options.port)] : await readdir(root).catch(() => [] as string[]);
  let stopped = 0;
  for (const port of ports) {
    const dir = join(root, port);
    const running = await readRunning(dir);
    if (running !== undefined) {
      process.kill(running.pid, 'SIGTERM');
      const deadline = Date.now() + 20_000;
      while (alive(running.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (alive(running.pid)) process.kill(running.pid, 'SIGKILL');
      options.reporter.info(`stopped the dev chain (${running.network}) at ${running.url} (pid ${running.pid})`);
      stopped++;
    }
    await rm(dir, { recursive: true, force: true });
  }
  if (stopped === 0) options.reporter.info(`no dev chain started with --detach is running${options.port === undefined ? '' : ` on port ${options.port}`}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
