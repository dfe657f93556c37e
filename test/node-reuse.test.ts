import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { envFor, openDb } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { idxCli } from './support/idx-programs.ts';
import { compareDumps, dumpEntityTables } from './support/entity-table-dump.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

// A partial reindex copies rows between two schemas of one database: PostgreSQL only.
const skip = process.env.DB_HOST ? false : '--reuse needs PostgreSQL: set DB_HOST and the other DB_* variables';

t.test('--reuse: only the changed handler runs, the rest is copied by height, and the tables equal a full reindex of the new version', { skip }, async (t) => {
  const { anvil, workload, built } = await setupErc20Chain(t, 20);
  const env = envFor('postgres');
  const dir = await copyProject(t, built);
  const [v1, partial, full, unsafe, stopped] = [1, 2, 3, 4, 5].map(() => uniqueSchemaName('idx_reuse'));
  let lines: string[] = [];
  const logger = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(l) });
  const index = (schema: string, extra: string[] = [], signal = new AbortController().signal) =>
    runNode({
      options: nodeOptions(dir, anvil.url, ['--db-schema', schema, ...extra]),
      logger,
      version: 'test',
      env,
      signal,
      settings: { stopAtHeight: workload.toBlock },
    });
  const db = await openDb('postgres', dir);
  t.teardown(async () => {
    for (const s of [v1, partial, full, unsafe, stopped]) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
    await db.close();
  });
  const meta = async (schema: string, key: string) =>
    (await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(schema)}._metadata where key = $1`, [key]))[0]?.value;
  const blocks = join(dir, 'src', 'mappings', 'blocks.ts');
  const patchBlocks = async (from: string, to: string) => {
    const source = await readFile(blocks, 'utf8');
    t.ok(source.includes(from), `blocks.ts has ${from}`);
    await writeFile(blocks, source.replace(from, to));
    await idxCli(dir, 'build');
  };

  await index(v1);
  t.same(
    await meta(v1, 'idxHandlerAccess'),
    {
      complete: true,
      handlers: { handleBlock: { reads: [], writes: ['StarterEntity'] }, handleTransfer: { reads: ['Account'], writes: ['Account', 'Transfer'] } },
    },
    "each handler's reads and writes are recorded from the first block",
  );

  // version 2: handleBlock's code changes; handleTransfer's does not
  await patchBlocks('blockHeight: BigInt(block.number)', 'blockHeight: BigInt(block.number) * 10n');
  lines = [];
  const started = Date.now();
  await index(partial, ['--reuse', v1]);
  const partialMs = Date.now() - started;
  const log = lines.map((l) => (JSON.parse(l) as { message?: string }).message ?? '').join('\n');
  t.match(
    log,
    new RegExp(
      `--reuse ${v1}: copying the rows of handleTransfer up to block ${workload.toBlock}, while handleBlock \\(its code or what calls it changed\\) runs up to there; then every handler runs`,
    ),
  );
  t.match(log, new RegExp(`--reuse ${v1}: copied accounts \\d+, transfers \\d+ versions up to block ${workload.toBlock} in \\d+ ms`));
  const state = (await meta(partial, 'idxReuse')) as { copiedTypes: string[] };
  t.match(state, { from: v1, height: workload.toBlock, checked: true, plan: { run: ['handleBlock'], reused: ['handleTransfer'] } });
  t.same([...state.copiedTypes].sort(), ['Account', 'Transfer'], 'each table copied is noted');

  const fullStarted = Date.now();
  await index(full);
  t.comment(`${workload.toBlock - workload.startBlock + 1} blocks: partial ${partialMs} ms, full ${Date.now() - fullStarted} ms (start-up included)`);
  const [a, b] = [await dumpEntityTables(db.kysely, partial), await dumpEntityTables(db.kysely, full)];
  t.ok(a.transfers!.rows.length > 0 && a.starter_entities!.rows.length > 0, 'rows to compare');
  t.ok(
    a.starter_entities!.rows.every((r) => BigInt(r.block_height!) % 10n === 0n),
    "handleBlock's new code wrote the starter entities",
  );
  t.same(compareDumps(b, a, { theirs: 'full reindex', ours: 'partial reindex' }), [], 'every version of every table equals a full reindex of version 2');
  t.same(await meta(partial, 'idxHandlerAccess'), await meta(full, 'idxHandlerAccess'), "the record of reads and writes is the full run's");

  // a restart after the partial reindex goes on as a normal start
  lines = [];
  await index(partial, ['--reuse', v1]);
  t.notMatch(lines.join('\n'), /copying|copied/, 'nothing copied again');
  await t.rejects(index(partial, ['--reuse', full]), { code: 'REUSE_REFUSED', message: new RegExp(`was filled from "${v1}"`) });
  await t.rejects(index(full, ['--reuse', v1]), { code: 'REUSE_REFUSED', message: /already holds indexed blocks \(to \d+\); --reuse fills a new schema/ });

  // stopped while the rows are copied: the start after goes on from what was committed, and ends the same
  const stop = new AbortController();
  const watching = createLogger({ level: 'info', format: 'json', write: (l) => void (l.includes('copying the rows') && stop.abort()) });
  await runNode({
    options: nodeOptions(dir, anvil.url, ['--db-schema', stopped, '--reuse', v1]),
    logger: watching,
    version: 'test',
    env,
    signal: stop.signal,
    settings: { stopAtHeight: workload.toBlock },
  });
  t.match(await meta(stopped, 'idxReuse'), { checked: false }, 'stopped before the run was checked');
  await t.rejects(index(stopped), {
    code: 'REUSE_REFUSED',
    message: new RegExp(`a partial reindex from "${v1}" that has not finished[^]*start it again with --reuse ${v1}`),
  });
  await index(stopped, ['--reuse', v1]);
  t.same(compareDumps(b, await dumpEntityTables(db.kysely, stopped), { theirs: 'full reindex', ours: 'stopped and restarted' }), []);

  // version 3: handleBlock now reads what handleTransfer writes: the run shows it, and the schema is refused
  await patchBlocks('const entity =', 'await store.get("Account", block.hash);\n  const entity =');
  await t.rejects(index(unsafe, ['--reuse', v1]), {
    code: 'REUSE_REFUSED',
    message: /the new code reads or writes what the plan did not allow[\s\S]*handleBlock \(changed\) reads Account, which handleTransfer \(unchanged\) writes/,
  });
});
