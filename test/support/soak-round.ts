import { runNode } from '../../apps/node/run-node.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../../infra/postgres/sql.ts';
import { uniqueSchemaName } from './test-backends.ts';
import { envFor, nodeOptions, openDb, type BackendKind } from './erc20-chain.ts';
import { copyProject, erc20Tables, slowDownTransfers } from './erc20-project.ts';
import { startFaultProxy, type FaultKind } from './fault-proxy.ts';
import { runWithKills, type KillCycleResult } from './kill-cycles.ts';
import type { Teardown } from './local-rpc-server.ts';

export interface SoakRoundOptions {
  kind: BackendKind;
  /** the honest chain (anvil) */
  chainUrl: string;
  /** the built ERC20 starter project */
  built: string;
  toBlock: number;
  seed: number;
  /** share of RPC requests that get a fault */
  rate: number;
  kinds: readonly FaultKind[];
  kills: number;
  /** idx-node arguments for the faulted run */
  args?: readonly string[];
  maxErrorExits?: number;
}

export interface SoakRound {
  run: KillCycleResult;
  faults: Record<FaultKind, number>;
  totalFaults: number;
  requests: number;
  seconds: number;
  /** the version rows of the faulted run and of an uninterrupted one */
  tables: { faulted: unknown; reference: unknown };
}

/**
 * One round of the fault-injection harness: an uninterrupted reference run, then the same project
 * through a faulting proxy with seeded SIGKILLs, and both runs' tables read back for comparison.
 */
export async function soakRound(t: Teardown, o: SoakRoundOptions): Promise<SoakRound> {
  const env = envFor(o.kind);
  const reference = await copyProject(t, o.built);
  const refSchema = uniqueSchemaName('idx_soak');
  await runNode({
    options: nodeOptions(reference, o.chainUrl, ['--db-schema', refSchema]),
    logger: createLogger({ level: 'warn', format: 'colored', colors: false, write: () => {} }),
    version: 'test',
    env,
    signal: new AbortController().signal,
    settings: { stopAtHeight: o.toBlock },
  });

  const faulty = await copyProject(t, o.built);
  // slow handlers give the kills a wide window mid-indexing
  await slowDownTransfers(faulty, 4);
  const proxy = await startFaultProxy(t, o.chainUrl, { seed: o.seed, rate: o.rate, kinds: o.kinds });
  const schema = uniqueSchemaName('idx_soak');
  const started = performance.now();
  const run = await runWithKills({
    dir: faulty,
    env,
    args: ['--network-endpoint', proxy.url, '--db-schema', schema, '--batch-size', '5', '--store-flush-interval', '1', ...(o.args ?? [])],
    target: o.toBlock,
    seed: o.seed,
    kills: o.kills,
    killWindowMs: [300, 2500],
    maxErrorExits: o.maxErrorExits,
  });
  const seconds = (performance.now() - started) / 1000;

  const refDb = await openDb(o.kind, reference);
  const db = o.kind === 'postgres' ? refDb : await openDb(o.kind, faulty);
  try {
    const tables = { faulted: await erc20Tables(db, schema), reference: await erc20Tables(refDb, refSchema) };
    return { run, faults: { ...proxy.counts }, totalFaults: proxy.total(), requests: proxy.requests(), seconds, tables };
  } finally {
    for (const s of [refSchema, schema]) await execute(refDb.kysely, `drop schema if exists ${quoteIdent(s)} cascade`).catch(() => undefined);
    await refDb.close();
    if (db !== refDb) await db.close();
  }
}
