import t from 'tap';
import { toEventSelector } from 'viem/utils';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { balanceOf } from './support/erc20-balance.ts';
import { copyProject } from './support/project-copies.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { indexInProcess, openIndexedDb } from './support/index-in-process.ts';

exitWhenDone();

const ZERO = '0x0000000000000000000000000000000000000000';
const { anvil, client, workload, built } = await setupErc20Chain(t);
const transferLogs = await client.request<unknown[]>('eth_getLogs', [
  { fromBlock: '0x0', toBlock: `0x${workload.toBlock.toString(16)}`, topics: [toEventSelector('Transfer(address,address,uint256)')] },
]);

const runs = [
  ...BACKENDS.map((kind) => ({ kind, args: [] as string[], label: kind })),
  // Worker threads fetch the ranges in turn; processing must still see every block in order.
  { kind: BACKENDS[BACKENDS.length - 1]!, args: ['--workers', '2', '--batch-size', '7'], label: `${BACKENDS[BACKENDS.length - 1]} with --workers 2` },
];

for (const { kind, args, label } of runs) {
  t.test(`${label}: the ERC20 example indexes every Transfer exactly once and balances match the chain`, async (t) => {
    const dir = await copyProject(t, built);
    const schema = uniqueSchemaName('idx_e2e');
    await indexInProcess(kind, dir, anvil.url, ['--db-schema', schema, ...args], workload.toBlock);
    const db = await openIndexedDb(t, kind, dir, [schema]);
    const { transfers, accounts, starters } = await erc20Tables(db, schema);
    t.equal(transfers.length, transferLogs.length, 'one Transfer row per Transfer log, mints included');
    t.equal(new Set(transfers.map((r) => r.id)).size, transfers.length, 'no id twice');

    const live = accounts.filter((a) => String(a.range).endsWith(',)'));
    t.equal(live.length, 1 + workload.senders.length + workload.recipients.length, 'an account for every holder and the zero address');
    const mismatches: string[] = [];
    for (const a of live) {
      if (a.id === ZERO) continue;
      const onChain = String(await balanceOf(client, workload.token, String(a.id), workload.toBlock));
      if (a.balance !== onChain) mismatches.push(`${a.id}: indexed ${a.balance}, balanceOf ${onChain}`);
    }
    t.same(mismatches, [], "every balance equals the contract's balanceOf");
    t.ok(accounts.length > live.length, 'historical mode kept the earlier balances as closed versions');
    t.equal(starters.length, Math.floor(workload.toBlock / 5), 'the block handler ran on every fifth block');
    const [meta] = await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(schema)}._metadata where key = 'lastProcessedHeight'`);
    t.equal(meta?.value, workload.toBlock);
  });
}
