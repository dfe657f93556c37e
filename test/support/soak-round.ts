import { execute, quoteIdent } from '../../infra/postgres/sql.ts';
import { uniqueSchemaName, type BackendKind } from './test-backends.ts';
import { envFor, openDb } from './node-backends.ts';
import { copyProject } from './project-copies.ts';
import { erc20Tables } from './erc20-tables.ts';
import { slowDownTransfers } from './starter-mapping.ts';
import { startFaultProxy, type FaultKind } from './fault-proxy.ts';
import { runWithKills, type KillCycleResult } from './kill-cycles.ts';
import type { Teardown } from './teardown.ts';
import { referenceTables, type Erc20Tables } from './reference-run.ts';

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
  /** the uninterrupted run's rows (`referenceTables`), when several rounds share one; else one is made */
  reference?: Erc20Tables;
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
 * One round of the fault-injection harness: an uninterrupted reference run (unless given), then the same
 * project through a faulting proxy with seeded SIGKILLs, and both runs' tables read back for comparison.
 */
export async function soakRound(t: Teardown, o: SoakRoundOptions): Promise<SoakRound> {
  const env = envFor(o.kind);
  const reference = o.reference ?? (await referenceTables(t, o.built, o.chainUrl, o.toBlock));

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

  const db = await openDb(o.kind, faulty);
  try {
    const tables = { faulted: await erc20Tables(db, schema), reference };
    return { run, faults: { ...proxy.counts }, totalFaults: proxy.total(), requests: proxy.requests(), seconds, tables };
  } finally {
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`).catch(() => undefined);
    await db.close();
  }
}
