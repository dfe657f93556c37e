import { appendFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { decodeEventLog, getAddress, toEventSelector } from 'viem/utils';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { testErc20Abi } from '../devchain/contracts/test-erc20.artifact.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, envFor, openDb } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

/** RFC 4180, enough for the test: quoted cells with doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((cell += '"'), i++);
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(cell), (cell = ''));
    else if (c === '\n') (row.push(cell), rows.push(row), (row = []), (cell = ''));
    else cell += c;
  }
  if (cell !== '' || row.length > 0) throw new Error('the file does not end with a line break');
  return rows;
}

const kind = BACKENDS[BACKENDS.length - 1]!;
const env = envFor(kind);
const { anvil, client, workload, built } = await setupErc20Chain(t, 12);
const logger = createLogger({ level: 'silent', format: 'json' });

t.test("--csv-out-dir: one append-only file per entity, row by row as the chain's transfers, nothing repeated after a restart", async (t) => {
  const dir = await copyProject(t, built);
  const out = join(dir, 'csv');
  const schema = uniqueSchemaName('idx_csv');
  t.teardown(async () => {
    const db = await openDb(kind, dir);
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
    await db.close();
  });
  const index = (stopAtHeight: number) =>
    runNode({
      options: nodeOptions(dir, anvil.url, ['--db-schema', schema, '--csv-out-dir', out, '--batch-size', '3']),
      logger,
      version: 'test',
      env,
      signal: new AbortController().signal,
      settings: { stopAtHeight },
    });

  // Two runs; between them, bytes that a flush wrote but never committed (a crash before the commit).
  await index(workload.fromBlock + 4);
  await appendFile(join(out, 'Transfer.csv'), 'written,by,a,flush,that,never,committed,x,999\n');
  await appendFile(join(out, 'Account.csv'), 'half a ro');
  await index(workload.toBlock);

  t.same((await readdir(out)).sort(), ['Account.csv', 'StarterEntity.csv', 'Transfer.csv'], 'one file per entity; no _metadata or _poi');

  const logs = await client.request<{ topics: string[]; data: string; blockNumber: string; transactionHash: string; logIndex: string; address: string }[]>(
    'eth_getLogs',
    [
      {
        fromBlock: '0x1',
        toBlock: `0x${workload.toBlock.toString(16)}`,
        address: workload.token,
        topics: [toEventSelector('Transfer(address,address,uint256)')],
      },
    ],
  );
  const heights = [...new Set(logs.map((l) => Number(l.blockNumber)))];
  const blocks = await client.batch<{ number: string; timestamp: string; hash: string }>(
    heights.map((h) => ({ method: 'eth_getBlockByNumber', params: [`0x${h.toString(16)}`, false] })),
  );
  const timestampOf = new Map(blocks.map((b) => [Number(b.number), String(Number(b.timestamp))]));

  const transfers = parseCsv(await readFile(join(out, 'Transfer.csv'), 'utf8'));
  t.same(
    transfers[0],
    ['id', 'blockHeight', 'timestamp', 'fromId', 'toId', 'value', 'transactionHash', 'contractAddress', '__block_number'],
    'Transfer header',
  );
  const expectedTransfers: string[][] = [];
  const expectedAccounts: string[][] = [];
  const balances = new Map<string, bigint>();
  const move = (account: string, delta: bigint, height: string) => {
    const balance = (balances.get(account) ?? 0n) + delta;
    balances.set(account, balance);
    expectedAccounts.push([account, String(balance), height]);
  };
  for (const l of logs) {
    const { args } = decodeEventLog({ abi: testErc20Abi, eventName: 'Transfer', topics: l.topics as [`0x${string}`], data: l.data as `0x${string}` }) as {
      args: { from: string; to: string; value: bigint };
    };
    const height = String(Number(l.blockNumber));
    const [from, to] = [getAddress(args.from), getAddress(args.to)];
    expectedTransfers.push([
      `${l.transactionHash}-${Number(l.logIndex)}`,
      height,
      timestampOf.get(Number(height))!,
      from,
      to,
      String(args.value),
      l.transactionHash,
      getAddress(l.address),
      height,
    ]);
    move(from, -args.value, height);
    move(to, args.value, height);
  }
  t.equal(transfers.length - 1, workload.transfers + workload.senders.length, 'a row per transfer and mint, none repeated or lost across the restart');
  t.same(transfers.slice(1), expectedTransfers, "every Transfer row equals its log: Date as a Unix timestamp, __block_number the log's block");

  const accounts = parseCsv(await readFile(join(out, 'Account.csv'), 'utf8'));
  t.same(accounts[0], ['id', 'balance', '__block_number'], 'Account header: the derived fields have no column');
  t.same(accounts.slice(1), expectedAccounts, 'append-only: every save of an Account appended a row with the running balance');

  const starters = parseCsv(await readFile(join(out, 'StarterEntity.csv'), 'utf8'));
  t.same(starters[0], ['id', 'blockHeight', '__block_number']);
  const fifth = starters.slice(1).map((r) => Number(r[2]));
  t.same(
    fifth,
    Array.from({ length: Math.floor(workload.toBlock / 5) }, (_, i) => 5 * (i + 1)),
    'a StarterEntity row every fifth block',
  );
  t.ok(starters.slice(1).every((r) => r[1] === r[2]));
});
