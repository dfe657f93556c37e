import t, { type Test } from 'tap';
import { encodeFunctionData, getAddress, keccak256, toHex } from 'viem/utils';
import { testMinterAbi, testMinterBytecode } from '../devchain/contracts/test-minter.artifact.ts';
import { deployContract } from '../devchain/deploy-contract.ts';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { ANVIL_DEV_ACCOUNT } from '../devchain/start-anvil.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { toQuantity } from '../infra/rpc/hex-quantity.ts';
import { anvilForTest } from './support/anvil.ts';
import { BACKENDS, PROGRAM_BACKEND } from './support/node-backends.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { indexInProcess, openIndexedDb } from './support/index-in-process.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { gqlData, startQueryService } from './support/query-client.ts';
import { buildRealProject } from './support/real-project.ts';

/**
 * Projects shaped like SubQuery's public starters (test/fixtures/real-projects), built with
 * `idx codegen && idx build` unchanged but for their addresses, indexed on anvil, and every entity
 * checked against what the chain itself answers.
 */
exitWhenDone();

const TRANSFER = keccak256(toHex('Transfer(address,address,uint256)'));
const PLACEHOLDER_TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const PLACEHOLDER_MINTER = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

const anvil = await anvilForTest(t);
const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
const workload = await makeErc20Workload(client, { blocks: 4, transfersPerBlock: 4, approvalsPerBlock: 1, senders: 3, recipients: 5 });
const minter = await deployContract(client, { name: 'TestMinter', abi: testMinterAbi, bytecode: testMinterBytecode });

// Mints through the minter: the token emits Transfer, the minter EventToken, in one call; several per block.
interface Mint {
  eventId: bigint;
  to: string;
  value: bigint;
}
const mints: Mint[] = [];
await client.request('evm_setAutomine', [false]);
let nonce = Number(await client.request<string>('eth_getTransactionCount', [ANVIL_DEV_ACCOUNT, 'pending']));
for (let b = 0; b < 3; b++) {
  for (let i = 0; i < 3; i++) {
    const mint = { eventId: BigInt(1 + (i % 2)), to: workload.recipients[(b + i) % workload.recipients.length]!, value: BigInt(1000 * (b + 1) + i) };
    mints.push(mint);
    const data = encodeFunctionData({
      abi: testMinterAbi,
      functionName: 'mintToken',
      args: [workload.token as `0x${string}`, mint.eventId, mint.to as `0x${string}`, mint.value],
    });
    await client.request('eth_sendTransaction', [{ from: ANVIL_DEV_ACCOUNT, to: minter.address, data, gas: toQuantity(300_000), nonce: toQuantity(nonce++) }]);
  }
  await client.request('evm_mine');
}
await client.request('evm_setAutomine', [true]);
const lastBlock = Number(await client.request<string>('eth_blockNumber'));
// anvil calls a block final 64 blocks behind the head
await client.request('anvil_mine', ['0x40']);
const replace = {
  [PLACEHOLDER_TOKEN]: getAddress(workload.token),
  [PLACEHOLDER_MINTER]: getAddress(minter.address),
  'startBlock: 1': `startBlock: ${workload.startBlock}`,
};

type RpcTx = { hash: string; from: string; to: string | null; value: string; gas: string; nonce: string; input: string; blockNumber: string };
type RpcLog = { address: string; topics: string[]; data: string; transactionHash: string; logIndex: string; blockNumber: string };
/** a Transfer log's `to`, its third topic, lower case */
const recipientOf = (log: RpcLog) => `0x${log.topics[2]!.slice(26)}`;
const blockLogs = (h: number) => client.request<RpcLog[]>('eth_getLogs', [{ fromBlock: toQuantity(h), toBlock: toQuantity(h) }]);
const fullBlock = (h: number) => client.request<{ transactions: RpcTx[] }>('eth_getBlockByNumber', [toQuantity(h), true]);

/** Indexes `dir` up to the workload's last block and returns the live rows of `tables`. */
async function indexAndRead(t: Test, kind: (typeof BACKENDS)[number], dir: string, name: string, tables: string[], args: string[] = []) {
  return (await indexAndOpen(t, kind, dir, name, tables, args)).rows;
}

async function indexAndOpen(t: Test, kind: (typeof BACKENDS)[number], dir: string, name: string, tables: string[], args: string[] = []) {
  const schema = uniqueSchemaName(name.replace(/-/g, '_'));
  // Small batches on PGlite: the first ranges load what mappings read on first read, later ones fetch it with the blocks.
  await indexInProcess(kind, dir, anvil.url, ['--db-schema', schema, ...(kind === 'pglite' ? ['--batch-size', '3'] : []), ...args], lastBlock);
  const db = await openIndexedDb(t, kind, dir, [schema]);
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of tables)
    out[table] = await execute(db.kysely, `select * from ${quoteIdent(schema)}.${quoteIdent(table)} where upper_inf(__block_range) order by id`);
  return { rows: out, db, schema };
}

// the mapping API, not SQL: one database, in the isolate and in --unsafe's node:vm
const runs = [
  { kind: PROGRAM_BACKEND, args: [] as string[] },
  { kind: PROGRAM_BACKEND, args: ['--unsafe'] },
];
for (const { kind, args } of runs) {
  t.test(
    `${kind}${args.length ? ` ${args.join(' ')}` : ''}: an event handler reading event.transaction (chainlink-like) sees every field of the transaction, block.transactions and block.logs`,
    async (t) => {
      const dir = await buildRealProject(t, 'event-transaction', replace);
      const { transfer_events: rows } = await indexAndRead(t, kind, dir, 'event-transaction', ['transfer_events'], args);
      const expected = await client.request<RpcLog[]>('eth_getLogs', [
        { fromBlock: toQuantity(workload.startBlock), toBlock: toQuantity(lastBlock), address: workload.token, topics: [TRANSFER] },
      ]);
      t.equal(expected.length, workload.transfers + workload.senders.length + mints.length, 'workload transfers, its mints and the minter’s mints');
      t.equal(rows!.length, expected.length, 'one row per Transfer log');
      const byId = new Map(rows!.map((r) => [r.id as string, r]));
      const got: unknown[] = [];
      const want: unknown[] = [];
      for (const log of expected) {
        const height = Number(log.blockNumber);
        const block = await fullBlock(height);
        const all = await blockLogs(height);
        const tx = block.transactions.find((x) => x.hash === log.transactionHash)!;
        const row = byId.get(`${log.transactionHash}-${Number(log.logIndex)}`);
        got.push(
          row && {
            block_height: String(row.block_height),
            tx_hash: row.tx_hash,
            tx_from: String(row.tx_from).toLowerCase(),
            tx_to: String(row.tx_to).toLowerCase(),
            tx_value: String(row.tx_value),
            tx_gas: String(row.tx_gas),
            tx_nonce: String(row.tx_nonce),
            selector: row.selector,
            tx_log_count: row.tx_log_count,
            block_tx_count: row.block_tx_count,
            block_log_count: row.block_log_count,
            value: String(row.value),
          },
        );
        want.push({
          block_height: String(height),
          tx_hash: tx.hash,
          tx_from: tx.from,
          tx_to: tx.to,
          tx_value: BigInt(tx.value).toString(),
          tx_gas: BigInt(tx.gas).toString(),
          tx_nonce: BigInt(tx.nonce).toString(),
          selector: tx.input.slice(0, 10),
          tx_log_count: all.filter((l) => l.transactionHash === tx.hash).length,
          block_tx_count: block.transactions.length,
          block_log_count: all.length,
          value: BigInt(log.data).toString(),
        });
      }
      t.same(got, want, 'every row as the chain answers: the transaction, its logs, the block');
      t.ok(
        rows!.some((r) => Number(r.tx_log_count) === 2),
        'a minter call: its transaction has the token’s Transfer and the minter’s EventToken',
      );
      t.ok(
        rows!.some((r) => Number(r.block_log_count) > Number(r.block_tx_count)),
        'block.logs holds the Approval logs no handler matched',
      );
    },
  );

  if (args.length > 0) continue;
  t.test(`${kind}: a call handler finding another contract's event in tx.logs (gnosis-poap-like) creates every token`, async (t) => {
    const dir = await buildRealProject(t, 'call-logs', replace);
    const { tokens, events } = await indexAndRead(t, kind, dir, 'call-logs', ['tokens', 'events']);
    const receiptsOf = await client.request<RpcLog[]>('eth_getLogs', [
      { fromBlock: toQuantity(minter.blockNumber), toBlock: toQuantity(lastBlock), address: minter.address },
    ]);
    t.equal(receiptsOf.length, mints.length, 'one EventToken per mint on the chain');
    t.same(
      tokens!
        .map((r) => ({ id: r.id, event: r.event_id, owner: r.owner, amount: String(r.amount), token: r.token_contract, at: String(r.minted_at) }))
        .sort((a, b) => Number(a.id) - Number(b.id)),
      receiptsOf.map((l, i) => ({
        id: String(BigInt(l.data)),
        event: String(BigInt(l.topics[1]!)),
        owner: mints[i]!.to.toLowerCase(),
        amount: String(mints[i]!.value),
        token: workload.token,
        at: String(Number(l.blockNumber)),
      })),
      'every minted token, with the Transfer its call made the token emit',
    );
    t.same(
      events!.map((e) => e.id),
      ['1', '2'],
    );
  });
}

// both databases, and --unsafe's node:vm (the same runtime inside)
for (const { kind, args } of [...BACKENDS.map((kind) => ({ kind, args: [] as string[] })), { kind: PROGRAM_BACKEND, args: ['--unsafe'] }]) {
  t.test(
    `${kind}${args.length ? ` ${args.join(' ')}` : ''}: work a handler starts and does not await (galxe-like) is written at its block, none of it lost`,
    async (t) => {
      const dir = await buildRealProject(t, 'unawaited-work', replace);
      const { db, schema } = await indexAndOpen(t, kind, dir, 'unawaited-work', [], args);
      const logs = await client.request<RpcLog[]>('eth_getLogs', [
        { fromBlock: toQuantity(workload.startBlock), toBlock: toQuantity(lastBlock), address: workload.token, topics: [TRANSFER] },
      ]);
      const receipts = await execute(
        db.kysely,
        `select id, "to", block_number, lower(__block_range) as from_block from ${quoteIdent(schema)}.receipts order by id collate "C"`,
      );
      t.same(
        receipts.map((r) => ({ id: r.id, to: r.to, block: Number(r.block_number), from: Number(r.from_block) })),
        logs
          .map((l) => ({
            id: `${l.transactionHash}-${Number(l.logIndex)}`,
            to: recipientOf(l),
            block: Number(l.blockNumber),
            from: Number(l.blockNumber),
          }))
          .sort((a, b) => (a.id < b.id ? -1 : 1)),
        'a receipt for every Transfer, each from the block of its log',
      );
      // a holder's versions: one from each block it received in
      const want: { id: string; last: number; from: number; to: number | null }[] = [];
      const byHolder = new Map<string, Set<number>>();
      for (const l of logs) {
        const to = recipientOf(l);
        byHolder.set(to, (byHolder.get(to) ?? new Set()).add(Number(l.blockNumber)));
      }
      for (const [id, blocks] of [...byHolder].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const list = [...blocks].sort((a, b) => a - b);
        list.forEach((b, i) => want.push({ id, last: b, from: b, to: i + 1 < list.length ? list[i + 1]! : null }));
      }
      const holders = await execute(
        db.kysely,
        `select id, last_block, lower(__block_range) as from_block, upper(__block_range) as to_block
        from ${quoteIdent(schema)}.holders order by id collate "C", lower(__block_range)`,
      );
      t.same(
        holders.map((r) => ({ id: r.id, last: Number(r.last_block), from: Number(r.from_block), to: r.to_block === null ? null : Number(r.to_block) })),
        want,
        'every version of every holder at the block of its transfers',
      );
    },
  );
}

for (const kind of BACKENDS) {
  t.test(`${kind}: entities with their own createdAt/updatedAt fields (ENS-, Lens-like) index and answer over GraphQL`, async (t) => {
    const dir = await buildRealProject(t, 'created-at', replace);
    const { rows, db, schema } = await indexAndOpen(t, kind, dir, 'created-at', ['domains']);
    const logs = await client.request<RpcLog[]>('eth_getLogs', [
      { fromBlock: toQuantity(workload.startBlock), toBlock: toQuantity(lastBlock), address: workload.token, topics: [TRANSFER] },
    ]);
    const expected = new Map<string, { createdAt: string; last: number; transfers: number }>();
    for (const log of logs) {
      const to = recipientOf(log);
      const seen = expected.get(to) ?? { createdAt: String(Number(log.blockNumber)), last: 0, transfers: 0 };
      expected.set(to, { ...seen, last: Number(log.blockNumber), transfers: seen.transfers + 1 });
    }
    const stamps = new Map<number, number>();
    for (const e of expected.values())
      stamps.set(e.last, Number((await client.request<{ timestamp: string }>('eth_getBlockByNumber', [toQuantity(e.last), false])).timestamp));
    const want = [...expected]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([id, e]) => ({ id, createdAt: e.createdAt, updatedAt: new Date(stamps.get(e.last)! * 1000).toISOString(), transfers: e.transfers }));
    t.same(
      rows.domains!.map((r) => ({ id: r.id, createdAt: String(r.created_at), updatedAt: (r.updated_at as Date).toISOString(), transfers: r.transfers })),
      want,
      'the fields own created_at/updated_at',
    );
    t.ok(
      rows.domains!.every((r) => r.__created_at instanceof Date && r.__updated_at instanceof Date),
      "idx's own times moved aside",
    );
    const q = await startQueryService(t, db, schema);
    const data = await gqlData(q.url, `{ domains(orderBy: [CREATED_AT_ASC, ID_ASC], first: 100) { nodes { id createdAt updatedAt transfers } } }`);
    t.same(
      data.domains.nodes,
      [...want].sort((a, b) => Number(a.createdAt) - Number(b.createdAt) || (a.id < b.id ? -1 : 1)),
    );
  });
}

t.test(`${PROGRAM_BACKEND}: a mapping using url, stream and timers, as SubQuery allows`, async (t) => {
  const dir = await buildRealProject(t, 'sandbox-modules', replace);
  const { receipts } = await indexAndRead(t, PROGRAM_BACKEND, dir, 'sandbox-modules', ['receipts']);
  const logs = await client.request<RpcLog[]>('eth_getLogs', [
    { fromBlock: toQuantity(workload.startBlock), toBlock: toQuantity(lastBlock), address: workload.token, topics: [TRANSFER] },
  ]);
  t.same(
    receipts!.map((r) => ({ id: r.id, link: r.link, memo: r.memo, waited: r.waited })),
    logs
      .map((l) => ({
        id: `${l.transactionHash}-${Number(l.logIndex)}`,
        link: `https://explorer.example/tx/${l.transactionHash}?log=${Number(l.logIndex)}&block=${Number(l.blockNumber)}`,
        memo: `VALUE ${BigInt(l.data)}`,
        waited: true,
      }))
      .sort((a, b) => (a.id < b.id ? -1 : 1)),
  );
});
