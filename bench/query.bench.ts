import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { startAnvil } from '../devchain/start-anvil.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { envFor } from '../test/support/node-backends.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { idxCli } from '../test/support/idx-programs.ts';
import { buildErc20Project } from '../test/support/erc20-starter.ts';
import { copyProject } from '../test/support/project-copies.ts';
import { atTransferStart, patchStarterMapping } from '../test/support/starter-mapping.ts';
import { runNodeCli } from '../test/support/watched-node.ts';
import type { Benchmark } from './run.ts';
import { failures, postLoad } from './post-load.ts';
import { percentile, sequentialTimes, startIdxQuery } from './query-p50.ts';
import { teardowns } from './teardowns.ts';

/**
 * idx-query on ~40,000 transfers indexed historically into PostgreSQL by the starter project
 * (BLOCKS blocks × 20 transfers), served by the idx-query CLI in its own process with default
 * flags. For each query: SECONDS of load from CONNECTIONS connections (requests/s, p50, p99), then
 * SEQUENTIAL requests one after another (p50), the figure SubQuery's 19 ms / 2.1 ms compare with.
 * The starter is given one more entity for the full-text search queries: a `Note` of a few words
 * per transfer, `@fullText` on its text.
 */
const BLOCKS = Number(process.env.BENCH_QUERY_BLOCKS ?? 2000);
const SECONDS = Number(process.env.BENCH_QUERY_SECONDS ?? 30);
const SEQUENTIAL = Number(process.env.BENCH_QUERY_SEQUENTIAL ?? 500);
const CONNECTIONS = 10;

async function measure(label: string, url: string, query: string): Promise<void> {
  const body = JSON.stringify({ query });
  const post = () =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.json() as Promise<{ errors?: unknown }>);
  const first = await post();
  if (first.errors !== undefined) throw new Error(`${label}: ${JSON.stringify(first.errors)}`);
  const r = await postLoad(url, body, CONNECTIONS, SECONDS);
  const times = await sequentialTimes(post, SEQUENTIAL);
  const failed = failures(r);
  console.log(
    `  ${label}: ${r.requests.average.toFixed(0)} requests/s with ${CONNECTIONS} connections, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${failed}; ` +
      `sequential p50 ${percentile(times, 0.5).toFixed(2)} ms, p99 ${percentile(times, 0.99).toFixed(2)} ms`,
  );
}

async function run(): Promise<void> {
  if (!process.env.DB_HOST) {
    console.log('skipped: needs PostgreSQL (set DB_HOST, DB_PORT, DB_USER, DB_DATABASE)');
    return;
  }
  const env = envFor('postgres');
  const cleanups: (() => unknown)[] = [];
  const t = { teardown: (fn: () => unknown) => void cleanups.push(fn) };
  const anvil = await startAnvil();
  cleanups.push(() => anvil.stop());
  const schema = uniqueSchemaName('idx_bench_query');
  const db = await createDb({ env });
  try {
    const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
    const workload = await makeErc20Workload(client, { blocks: BLOCKS, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 20, recipients: 1000 });
    await client.request('anvil_mine', ['0x40']);
    const dir = await copyProject(t, await buildErc20Project(t));
    await addNotes(dir);
    const t0 = performance.now();
    const indexed = await runNodeCli(dir, env, ['--network-endpoint', anvil.url, '--db-schema', schema, '--changes-index'], { until: workload.toBlock });
    if (indexed.lastSeen === undefined || indexed.lastSeen < workload.toBlock) throw new Error(`idx-node stopped early:\n${indexed.output}`);
    const s = quoteIdent(schema);
    // autovacuum would get there too; the figures should not depend on when it last ran
    await execute(db.kysely, `vacuum analyze ${s}.transfers`);
    await execute(db.kysely, `vacuum analyze ${s}.accounts`);
    const [counts] = await execute<{ transfers: string; versions: string }>(
      db.kysely,
      `select (select count(*) from ${s}.transfers) as transfers, (select count(*) from ${s}.accounts) as versions`,
    );
    console.log(
      `indexed ${counts!.transfers} transfers (${counts!.versions} account versions) historically in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    // idx-query stops before the schema is dropped
    const queryTd = teardowns();
    try {
      const url = await startIdxQuery(queryTd, schema, env);
      // ids as the mapping stored them (checksummed addresses)
      const [pick] = await execute<{ account: string; sender: string; n: string }>(
        db.kysely,
        `select (select id from ${s}.accounts where upper_inf(__block_range) order by id offset 7 limit 1) as account, from_id as sender, count(*) as n
           from ${s}.transfers group by from_id order by count(*) desc limit 1`,
      );
      const { account, sender } = pick!;
      console.log(`  (the sender has ${pick!.n} transfers)`);
      console.log(`idx-query, default flags; ${SECONDS} s of load per query, then ${SEQUENTIAL} sequential requests:`);
      await measure(
        'page of 100 transfers ordered by block',
        url,
        '{ transfers(first: 100, orderBy: BLOCK_HEIGHT_ASC) { nodes { id blockHeight fromId toId value timestamp } } }',
      );
      await measure('account by id', url, `{ account(id: "${account}") { id balance } }`);
      await measure('filtered count (transfers of one sender)', url, `{ transfers(filter: { fromId: { equalTo: "${sender}" } }) { totalCount } }`);
      await measure(
        'page of 100 transfers at a past height',
        url,
        `{ transfers(first: 100, orderBy: BLOCK_HEIGHT_DESC, blockHeight: "${Math.floor((workload.fromBlock + workload.toBlock) / 2)}") { nodes { id blockHeight from { id balance } } } }`,
      );
      await measure('full-text search, best 20 of one word', url, '{ searchNotes(search: "fox", first: 20) { nodes { id text } } }');
      await measure(
        'full-text search, a word and a prefix, with totalCount',
        url,
        '{ searchNotes(search: "quick jump*", first: 20) { totalCount nodes { id text } } }',
      );
      const mid = Math.floor((workload.fromBlock + workload.toBlock) / 2);
      await measure(
        'changes: page of 100 account changes in 100 blocks',
        url,
        `{ accountChanges(fromHeight: ${mid}, toHeight: ${mid + 100}, first: 100) { nodes { id height mutation before { balance } after { balance } } } }`,
      );
      await measure(
        'changes of one sender over the whole chain',
        url,
        `{ accountChanges(fromHeight: 0, first: 100, filter: { id: { equalTo: "${sender}" } }) { nodes { height after { balance } } } }`,
      );
    } finally {
      await queryTd.run();
    }
  } finally {
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`).catch(() => {});
    await db.close();
    for (const fn of cleanups.reverse()) await fn();
  }
}

const WORDS = ['fox', 'foxes', 'dog', 'quick', 'lazy', 'jumps', 'jumping', 'index', 'indexer', 'chain', 'block', 'token', 'amber', 'river', 'stone'];

/** The starter plus `Note`: a few words per transfer, searchable with `searchNotes`. */
async function addNotes(dir: string): Promise<void> {
  await appendFile(join(dir, 'schema.graphql'), '\ntype Note @entity @fullText(fields: ["text"], language: "english") {\n  id: ID!\n  text: String!\n}\n');
  await patchStarterMapping(dir, (source) => {
    const patched = atTransferStart(
      source.replace('import { Account, Transfer } from "../types";', 'import { Account, Note, Transfer } from "../types";'),
      `const words = ${JSON.stringify(WORDS)};
  let x = log.blockNumber * 31 + log.logIndex;
  const text: string[] = [];
  for (let i = 0; i < 3 + (log.logIndex % 6); i++) {
    x = (x * 75 + 74) % 65537;
    text.push(words[x % words.length]);
  }
  await Note.create({ id: \`\${log.transactionHash}-\${log.logIndex}\`, text: text.join(" ") }).save();`,
    );
    if (!patched.includes('Note.create')) throw new Error('handleTransfer not found in the starter mapping');
    return patched;
  });
  await idxCli(dir, 'codegen');
  await idxCli(dir, 'build');
}

const bench: Benchmark = { name: 'query', run };
export default bench;
