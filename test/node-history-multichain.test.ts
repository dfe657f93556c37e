import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { toEventSelector } from 'viem/utils';
import { forceClean, reindex } from '../apps/node/start-up/history-commands.ts';
import type { NodeOptions } from '../apps/node/start-up/node-options.ts';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { makeErc20Workload, type Erc20Workload } from '../devchain/make-erc20-workload.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { loadProject, manifestToYaml } from '../infra/project/load-project.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { createRpcClient, type RpcClient } from '../infra/rpc/create-rpc-client.ts';
import { hexToNumber } from '../infra/rpc/hex-quantity.ts';
import { anvilForTest } from './support/anvil.ts';
import { envFor, openDb } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { buildErc20Project } from './support/erc20-starter.ts';
import { copyProject, rebuild } from './support/project-copies.ts';
import { patchStarterMapping } from './support/starter-mapping.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

const noPostgres = process.env.DB_HOST ? false : '--multi-chain needs PostgreSQL (DB_HOST)';

t.test('--multi-chain: two chains in one schema', { skip: noPostgres }, async (t) => {
  const env = envFor('postgres');
  const logger = createLogger({ level: 'silent', format: 'json' });
  const built = await buildErc20Project(t);

  /** A chain with the ERC20 workload, and the starter project for it with ids prefixed by the chain id. */
  async function chain(chainId: number, seed: number): Promise<{ url: string; workload: Erc20Workload; dir: string; genesis: string; client: RpcClient }> {
    const anvil = await anvilForTest(t, { chainId });
    const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
    const workload = await makeErc20Workload(client, { blocks: 8, transfersPerBlock: 3, approvalsPerBlock: 0, senders: 4, recipients: 10, seed });
    await client.request('anvil_mine', ['0x40']);
    const dir = await copyProject(t, built);
    const manifest = join(dir, 'project.ts');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('chainId: "31337"', `chainId: "${chainId}"`));
    // Entities from both chains share the tables: ids carry the chain, as multi-chain projects do.
    await patchStarterMapping(dir, (source) => {
      const patched = source
        .replace('id: `${log.transactionHash}-${log.logIndex}`', 'id: `${chainId}-${log.transactionHash}-${log.logIndex}`')
        .replace('fromId: from,', 'fromId: `${chainId}-${from}`,')
        .replace('toId: to,', 'toId: `${chainId}-${to}`,')
        .replace('loadAccount(from)', 'loadAccount(`${chainId}-${from}`)')
        .replace('loadAccount(to)', 'loadAccount(`${chainId}-${to}`)');
      if ((patched.match(/\$\{chainId\}/g) ?? []).length !== 5) throw new Error('the starter mapping changed; update this test');
      return patched;
    });
    await rebuild(dir);
    const genesis = (await client.request<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])).hash;
    return { url: anvil.url, workload, dir, genesis, client };
  }

  const [a, b] = await Promise.all([chain(31337, 1), chain(31338, 2)]);
  const schema = uniqueSchemaName('idx_multi');
  const db = await openDb('postgres', a.dir);
  t.teardown(async () => {
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
    await db.close();
  });
  const s = quoteIdent(schema);
  const opts = (c: typeof a, extra: string[] = []) => nodeOptions(c.dir, c.url, ['--db-schema', schema, '--multi-chain', '--proof-of-index', ...extra]);
  const index = (c: typeof a, stopAtHeight: number) =>
    runNode({ options: opts(c), logger, version: 'test', env, signal: new AbortController().signal, settings: { stopAtHeight } });
  const rows = async (chainId: string) => ({
    transfers: await execute(
      db.kysely,
      `select id, block_height::text, from_id, to_id, value::text, __block_range::text r from ${s}.transfers where __chain = $1 order by id, lower(__block_range)`,
      [chainId],
    ),
    accounts: await execute(
      db.kysely,
      `select id, balance::text, __block_range::text r from ${s}.accounts where __chain = $1 order by id, lower(__block_range)`,
      [chainId],
    ),
    starters: await execute(db.kysely, `select id, block_height::text, __block_range::text r from ${s}.starter_entities where __chain = $1 order by id`, [
      chainId,
    ]),
  });
  const meta = async (chainId: string) =>
    Object.fromEntries(
      (await execute<{ key: string; value: unknown }>(db.kysely, `select key, value from ${s}.${quoteIdent(`_metadata_${chainId}`)}`)).map((r) => [
        r.key,
        r.value,
      ]),
    );
  const poi = (chainId: string) => execute(db.kysely, `select id, encode(hash, 'hex') h from ${s}.${quoteIdent(`_poi_${chainId}`)} order by id`);

  t.test('two chains index into one schema at once: shared entity tables, metadata and _poi per chain', async (t) => {
    await Promise.all([index(a, a.workload.toBlock), index(b, b.workload.toBlock)]);
    const [ma, mb] = [await meta('31337'), await meta('31338')];
    t.match(ma, { chain: '31337', genesisHash: a.genesis, lastProcessedHeight: a.workload.toBlock });
    t.match(mb, { chain: '31338', genesisHash: b.genesis, lastProcessedHeight: b.workload.toBlock });
    const [shared] = await execute<{ value: { entities: unknown[] } }>(db.kysely, `select value from ${s}._metadata where key = 'schema'`);
    t.equal(shared?.value.entities.length, 3, 'the shared entity model is where idx-query reads it');
    for (const [c, chainId] of [
      [a, '31337'],
      [b, '31338'],
    ] as const) {
      const r = await rows(chainId);
      t.equal(r.transfers.length, c.workload.transfers + c.workload.senders.length, `chain ${chainId}: every transfer and mint`);
      t.ok(
        r.transfers.every((x) => String(x.id).startsWith(`${chainId}-`)),
        `chain ${chainId}: its rows are marked with it`,
      );
      t.ok((await poi(chainId)).length > 0, `chain ${chainId}: its own _poi rows`);
    }
  });

  t.test('reindex and force-clean of one chain leave the other chain untouched', async (t) => {
    const before = { a: await rows('31337'), b: await rows('31338'), mb: await meta('31338'), pb: await poi('31338') };
    const target = a.workload.fromBlock + 3;
    await reindex({ ...opts(a), idx: a.dir }, target, logger, env);
    const after = await rows('31337');
    t.ok(
      after.transfers.every((x) => Number(x.block_height) <= target) && after.transfers.length < before.a.transfers.length,
      'chain 31337 lost its rows above the target',
    );
    t.same(await rows('31338'), before.b, 'chain 31338 kept every row, although its heights overlap');
    t.same(await meta('31338'), before.mb, 'and its metadata');
    t.same(await poi('31338'), before.pb, 'and its _poi');
    t.equal((await meta('31337')).lastProcessedHeight, target);

    await index(a, a.workload.toBlock);
    t.same(await rows('31337'), before.a, 'chain 31337 resumed to the same rows');

    await forceClean({ ...opts(a), idx: a.dir }, logger, env);
    t.same(await rows('31337'), { transfers: [], accounts: [], starters: [] }, "force-clean removed chain 31337's rows");
    const tables = (
      await execute<{ table_name: string }>(
        db.kysely,
        `select table_name from information_schema.tables where table_schema = $1 and table_name like '\\_%' order by 1`,
        [schema],
      )
    ).map((r) => r.table_name);
    t.same(tables, ['_metadata', '_metadata_31338', '_migrations', '_poi', '_poi_31338'], 'and its own tables');
    t.same(await rows('31338'), before.b, 'chain 31338 is untouched');
  });

  t.test('with --unfinalized-blocks, a reorganisation on one chain rolls back only that chain', async (t) => {
    const reorgs: string[] = [];
    const watching = createLogger({
      level: 'warn',
      format: 'json',
      write: (line) => {
        const record = JSON.parse(line) as { message?: unknown; event?: unknown };
        if (record.event === 'reorg') reorgs.push(String(record.message));
      },
    });
    const controller = new AbortController();
    const follow = (c: typeof a) =>
      runNode({
        options: opts(c, ['--unfinalized-blocks']),
        logger: watching,
        version: 'test',
        env,
        signal: controller.signal,
        settings: { pollIntervalMs: 50 },
      });
    const running = [follow(a), follow(b)];
    t.teardown(() => controller.abort());
    const failed = Promise.race(running.map((r) => r.then(() => new Promise<never>(() => {}))));
    failed.catch(() => undefined);
    const caughtUp = async (c: typeof a, chainId: string, reorgCount: number) => {
      const height = hexToNumber(await c.client.request('eth_blockNumber'));
      const deadline = Date.now() + 60_000;
      while (Number((await meta(chainId).catch(() => ({}) as Record<string, unknown>)).lastProcessedHeight ?? -1) < height || reorgs.length < reorgCount) {
        if (Date.now() > deadline) throw new Error(`chain ${chainId} did not reach ${height} with ${reorgCount} reorganisations (${reorgs.join(' | ')})`);
        await Promise.race([new Promise((r) => setTimeout(r, 50)), failed]);
      }
    };
    await caughtUp(a, '31337', 0);
    await caughtUp(b, '31338', 0);
    const before = { b: await rows('31338'), pb: await poi('31338') };

    // chain 31337: a branch of 4 blocks of transfers, indexed, then replaced by 5 blocks of others
    const more = (blocks: number, seed: number) =>
      makeErc20Workload(a.client, { blocks, transfersPerBlock: 3, approvalsPerBlock: 0, senders: 4, recipients: 10, seed, token: a.workload.token });
    const snapshot = await a.client.request<string>('evm_snapshot');
    await more(4, 50);
    await caughtUp(a, '31337', 0);
    await a.client.request('evm_revert', [snapshot]);
    await more(5, 60);
    await caughtUp(a, '31337', 1);
    controller.abort();
    await Promise.all(running);

    t.equal(reorgs.length, 1, 'one reorganisation, on chain 31337');
    const final = hexToNumber(await a.client.request('eth_blockNumber'));
    const logs = await a.client.request<{ transactionHash: string; logIndex: string }[]>('eth_getLogs', [
      { fromBlock: '0x0', toBlock: `0x${final.toString(16)}`, address: a.workload.token, topics: [toEventSelector('Transfer(address,address,uint256)')] },
    ]);
    const ids = (await rows('31337')).transfers.filter((x) => String(x.r).endsWith(',)')).map((x) => String(x.id));
    t.same(
      ids.sort(),
      logs.map((l) => `31337-${l.transactionHash}-${hexToNumber(l.logIndex)}`).sort(),
      'chain 31337 holds exactly the transfers of its final branch',
    );
    t.same(await rows('31338'), before.b, 'chain 31338 kept every row');
    t.same(await poi('31338'), before.pb, 'and its _poi');
  });
  t.test('a multichain folder: every chain it lists indexed by one idx-node into one schema, named after the folder', async (t) => {
    // a.dir holds the built mapping with chain-prefixed ids; its folder name becomes the schema, so it is unique
    const folder = uniqueSchemaName('idx_mcf');
    const dir = join(await mkdtemp(join(tmpdir(), 'idx-mcf-')), folder);
    await cp(a.dir, dir, { recursive: true, filter: (src) => !src.includes('.idx-data') });
    const mcs = quoteIdent(folder);
    t.teardown(async () => {
      await execute(db.kysely, `drop schema if exists ${mcs} cascade`);
      await rm(join(dir, '..'), { recursive: true, force: true });
    });
    const { raw } = await loadProject(join(dir, 'project.ts'));
    const chainYaml = (c: typeof a, chainId: string) => manifestToYaml({ ...(raw as object), network: { chainId, endpoint: [c.url] } });
    await writeFile(join(dir, 'ethereum.yaml'), chainYaml(a, '31337'));
    await writeFile(join(dir, 'polygon.yaml'), chainYaml(b, '31338'));
    await writeFile(
      join(dir, 'subquery-multichain.yaml'),
      'specVersion: 1.0.0\nquery: { name: "@subql/query", version: "*" }\nprojects:\n  - ethereum.yaml\n  - polygon.yaml\n',
    );

    const stop = Math.min(a.workload.toBlock, b.workload.toBlock);
    const args = (extra: string[]) => nodeOptions(dir, undefined, extra);
    const run = (options: NodeOptions) =>
      runNode({ options, logger, version: 'test', env, signal: new AbortController().signal, settings: { stopAtHeight: stop } });

    await t.rejects(run(args([])), {
      code: 'MULTI_CHAIN_FLAG_NEEDED',
      message: /is a multichain project \(.*ethereum\.yaml, .*polygon\.yaml\): index all its chains into one schema with --multi-chain/,
    });
    await run(args(['--multi-chain']));

    for (const [c, chainId] of [
      [a, '31337'],
      [b, '31338'],
    ] as const) {
      const meta = Object.fromEntries(
        (await execute<{ key: string; value: unknown }>(db.kysely, `select key, value from ${mcs}.${quoteIdent(`_metadata_${chainId}`)}`)).map((r) => [
          r.key,
          r.value,
        ]),
      );
      t.match(meta, { chain: chainId, genesisHash: c.genesis, lastProcessedHeight: stop }, `chain ${chainId}: its own metadata`);
      const logs = await c.client.request<{ transactionHash: string; logIndex: string }[]>('eth_getLogs', [
        { fromBlock: '0x0', toBlock: `0x${stop.toString(16)}`, address: c.workload.token, topics: [toEventSelector('Transfer(address,address,uint256)')] },
      ]);
      const ids = await execute<{ id: string }>(db.kysely, `select id from ${mcs}.transfers where __chain = $1 and upper_inf(__block_range)`, [chainId]);
      t.same(
        ids.map((r) => r.id).sort(),
        logs.map((l) => `${chainId}-${l.transactionHash}-${hexToNumber(l.logIndex)}`).sort(),
        `chain ${chainId}: every transfer, in the shared table`,
      );
    }

    // force-clean of the folder removes every chain's data and tables, as each chain's own force-clean would
    await forceClean({ ...args(['--multi-chain']), idx: dir }, logger, env);
    const tables = (
      await execute<{ table_name: string }>(
        db.kysely,
        `select table_name from information_schema.tables where table_schema = $1 and table_name like '\\_%' order by 1`,
        [folder],
      )
    ).map((r) => r.table_name);
    t.same(tables, ['_metadata', '_migrations', '_poi'], 'no chain tables are left');
    t.same(await execute(db.kysely, `select id from ${mcs}.transfers`), [], 'nor rows');
  });
});
