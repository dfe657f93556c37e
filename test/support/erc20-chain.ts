import { join } from 'node:path';
import { makeErc20Workload, type Erc20Workload } from '../../devchain/make-erc20-workload.ts';
import type { Anvil } from '../../devchain/start-anvil.ts';
import { createDb } from '../../infra/postgres/create-db.ts';
import { createRpcClient, type RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { parseNodeArgs, type NodeOptions } from '../../apps/node/node-options.ts';
import { anvilForTest } from './anvil.ts';
import { buildErc20Project } from './erc20-starter.ts';
import { freePortGuess } from './node-ports.ts';

export type BackendKind = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when `DB_HOST` is set (CI sets it). */
export const BACKENDS: readonly BackendKind[] = process.env.DB_HOST ? ['pglite', 'postgres'] : ['pglite'];

/**
 * The one backend for scenarios about the program rather than SQL (RPC faults, lying endpoints,
 * bad values caught in the sandbox): PostgreSQL when `DB_HOST` is set (it opens faster), else
 * PGlite. SQL-level behaviour is tested on both.
 */
export const PROGRAM_BACKEND: BackendKind = process.env.DB_HOST ? 'postgres' : 'pglite';

export interface Erc20Chain {
  anvil: Anvil;
  client: RpcClient;
  workload: Erc20Workload;
  /** the starter project, initialised, generated and built; copy it before use */
  built: string;
}

/**
 * anvil with an ERC20 workload of `blocks` × 20 transfers + 2 approvals, followed by the 64 blocks
 * anvil needs before it calls the workload final, and the starter project built to index it.
 */
export async function setupErc20Chain(t: { teardown(fn: () => unknown): void }, blocks = 40): Promise<Erc20Chain> {
  const anvil = await anvilForTest(t);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  const workload = await makeErc20Workload(client, { blocks, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 10, recipients: 100 });
  await client.request('anvil_mine', ['0x40']);
  return { anvil, client, workload, built: await buildErc20Project(t) };
}

/** Node options as the CLI parses them, for a node run in the test's own process; no `endpoint`: the manifest's. */
export function nodeOptions(dir: string, endpoint: string | undefined, extra: readonly string[] = []): NodeOptions {
  const cmd = parseNodeArgs(
    ['-f', dir, ...(endpoint === undefined ? [] : ['--network-endpoint', endpoint]), '-p', String(freePortGuess()), '--log-level', 'warn', ...extra],
    {
      program: 'idx-node',
      version: 'test',
      variant: 'base',
      cores: 2,
      write: () => {},
    },
  );
  if (cmd.command !== 'run') throw new Error('expected a run command');
  return cmd.options;
}

export function envFor(kind: BackendKind): Record<string, string | undefined> {
  if (kind === 'pglite') return {};
  const { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE } = process.env;
  return { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE };
}

/** The database a node run on `dir` wrote to. */
export function openDb(kind: BackendKind, dir: string) {
  return createDb({ env: envFor(kind), dataDir: join(dir, '.idx-data') });
}
