import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { deadPort } from '../test/support/local-rpc-server.ts';
import { measureIndexing, type IndexingRun } from './index-once.ts';
import { runUntilCommitted, type IndexerRun } from './run-until-committed.ts';

/**
 * SubQuery's own Substrate node, the reference the Substrate bench compares idx with: same project
 * folder (built by `idx build`: @subql/node loads its dist/index.js unchanged), same chain, same
 * PostgreSQL. It is not a dependency of idx: the first run installs it from the npm registry into
 * a cache folder (SUBQL_NODE_DIR, default ~/.cache/idx-bench/subql-node-<version>).
 */
export const SUBQL_NODE_VERSION = '6.4.6';
/** SubQuery's own EVM node, the reference of the Ethereum comparisons (SUBQL_NODE_ETHEREUM_DIR moves its cache folder) */
export const SUBQL_NODE_ETHEREUM_VERSION = '6.5.0';

export async function subqlNodeBin(): Promise<string> {
  const dir = process.env.SUBQL_NODE_DIR ?? join(homedir(), '.cache', 'idx-bench', `subql-node-${SUBQL_NODE_VERSION}`);
  return installedBin(dir, '@subql/node', SUBQL_NODE_VERSION, 'about 2 minutes');
}

export async function subqlNodeEthereumBin(): Promise<string> {
  const dir = process.env.SUBQL_NODE_ETHEREUM_DIR ?? join(homedir(), '.cache', 'idx-bench', `subql-node-ethereum-${SUBQL_NODE_ETHEREUM_VERSION}`);
  return installedBin(dir, '@subql/node-ethereum', SUBQL_NODE_ETHEREUM_VERSION, 'about a minute');
}

/**
 * `<dir>/node_modules/<pkg>/bin/run`, installing `pkg@version` there with npm first when it is
 * missing: SubQuery's programs are compared with, never depended on.
 */
export async function installedBin(dir: string, pkg: string, version: string, takes: string): Promise<string> {
  const bin = join(dir, 'node_modules', ...pkg.split('/'), 'bin', 'run');
  if (existsSync(bin)) return bin;
  console.log(`installing ${pkg} ${version} into ${dir} for the comparison (once; ${takes})…`);
  await mkdir(dir, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const npm = spawn('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel', 'error', `${pkg}@${version}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    npm.on('error', reject);
    npm.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm install ${pkg}@${version} exited with ${code}`))));
  });
  if (!existsSync(bin)) throw new Error(`${pkg} was installed but ${bin} is missing`);
  return bin;
}

/**
 * Runs SubQuery's node (`bin`, @subql/node unless given) on `dir` into `schema` (historical, as idx's default) until
 * `toBlock`; prints its figures.
 */
export async function subqlIndexOnce(
  label: string,
  dir: string,
  endpoint: string,
  dbEnv: Record<string, string | undefined>,
  schema: string,
  toBlock: number,
  events: number,
  bin?: string,
): Promise<IndexingRun> {
  bin ??= await subqlNodeBin();
  const port = await deadPort();
  const child = spawn(
    process.execPath,
    [bin, '-f', dir, '--network-endpoint', endpoint, '--db-schema', schema, '--port', String(port), '--historical', 'height', '--log-level', 'warn'],
    {
      // SubQuery's documentation asks for TZ=UTC (it stores timestamps without a time zone)
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', ...dbEnv, DB_PASS: dbEnv.DB_PASS ?? 'postgres' },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  // its /meta names the block in progress only; the committed height is in its _metadata table
  const db = await createDb({ env: dbEnv });
  try {
    const committed = async () => {
      const rows = await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(schema)}._metadata where key = 'lastProcessedHeight'`);
      return rows[0] === undefined ? undefined : Number(rows[0].value);
    };
    return await measureIndexing({ label, child, port, toBlock, events, blocks: toBlock, committed });
  } finally {
    await db.close();
  }
}

/**
 * Runs @subql/node on a manifest into `schema` as a user runs it (its runner options as the manifest
 * sets them) until it has committed `toBlock`, or it stops on its own (an error), or `timeoutMs`
 * passes; then stops it. Its log is read (JSON) for the error lines.
 */
export async function runSubqlNode(
  manifest: string,
  dbEnv: Record<string, string | undefined>,
  schema: string,
  toBlock: number,
  timeoutMs = 120_000,
  /** SubQuery's node to run: @subql/node unless given (subqlNodeEthereumBin) */
  bin?: string,
): Promise<IndexerRun> {
  bin ??= await subqlNodeBin();
  const port = await deadPort();
  const child = spawn(process.execPath, [bin, '-f', manifest, '--db-schema', schema, '--port', String(port), '--output-fmt', 'json', '--log-level', 'info'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', ...dbEnv, DB_PASS: dbEnv.DB_PASS ?? 'postgres' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return runUntilCommitted(child, dbEnv, schema, toBlock, timeoutMs);
}
