import t from 'tap';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, envFor, openDb } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { referenceTables } from './support/reference-run.ts';
import { copyProject } from './support/project-copies.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { runNodeCli } from './support/watched-node.ts';
import { slowDownTransfers } from './support/starter-mapping.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

const { anvil, workload, built } = await setupErc20Chain(t);

const expected = await referenceTables(t, built, anvil.url, workload.toBlock);

for (const kind of BACKENDS) {
  t.test(`${kind}: killed mid-run (SIGKILL), a restart resumes with nothing lost or duplicated`, async (t) => {
    const killed = await copyProject(t, built);
    // Slow handlers and a flush after every batch of 2 blocks: the kill lands mid-run, between and during flushes.
    await slowDownTransfers(killed, 3);
    const env = envFor(kind);
    const killSchema = uniqueSchemaName('idx_e2e');
    const args = ['--network-endpoint', anvil.url, '--db-schema', killSchema, '--batch-size', '2', '--store-cache-async=false', '--store-cache-threshold', '1'];
    const killAt = workload.fromBlock + Math.floor((workload.toBlock - workload.fromBlock) / 2);
    const first = await runNodeCli(killed, env, args, { killAt });
    if (first.timedOut) t.fail(`the first run never reached block ${killAt}; its log ends:\n${first.output.slice(-3000)}`);
    t.equal(first.signal, 'SIGKILL', 'the first run was killed');
    t.ok(first.lastSeen !== undefined && first.lastSeen < workload.toBlock, `killed mid-run, after block ${first.lastSeen}`);
    // the fetch lines are debug lines (a catch-up has hundreds of them): --debug fetch shows them
    const second = await runNodeCli(killed, env, [...args, '--debug', 'fetch'], { until: workload.toBlock });
    if (second.timedOut) t.fail(`the restart never reached block ${workload.toBlock}; its log ends:\n${second.output.slice(-3000)}`);
    t.match(second.output, /resuming after block \d+/);
    // The reference's fetch line, in block order (ranges are fetched ahead but logged as they are processed).
    t.notMatch(first.output, /fetch block \[/, 'not without --debug');
    const ranges = [...second.output.matchAll(/<fetch> DEBUG fetch block \[(\d+),(\d+)\], total (\d+) blocks/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
      Number(m[3]),
    ]);
    t.ok(ranges.length > 0, 'fetch lines are printed');
    t.ok(
      ranges.every(([from, to, total], i) => total === to! - from! + 1 && (i === 0 || from === ranges[i - 1]![1]! + 1)),
      'consecutive ranges, in order, with their block counts',
    );
    t.equal(second.code, 0, 'SIGTERM stops the node cleanly');

    const killDb = await openDb(kind, killed);
    t.teardown(async () => {
      await execute(killDb.kysely, `drop schema if exists ${quoteIdent(killSchema)} cascade`).catch(() => undefined);
      await killDb.close();
    });
    t.same(await erc20Tables(killDb, killSchema), expected, 'every version row equals an uninterrupted run');
  });
}
