import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { forceClean } from '../apps/node/start-up/history-commands.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { advisoryKey, LOCK_FILE } from '../infra/postgres/acquire-writer-lock.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, envFor } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { runNodeCli } from './support/watched-node.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

const { anvil, workload, built } = await setupErc20Chain(t, 20);

/** The pid of the idx-node holding the writer lock, once it holds it. */
async function lockHolderPid(kind: string, dir: string, schema: string): Promise<number> {
  for (let i = 0; i < 600; i++) {
    if (kind === 'pglite') {
      const file = join(dir, '.idx-data', LOCK_FILE);
      if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')).pid;
    } else {
      const db = await createDb({ env: envFor('postgres') });
      const key = BigInt.asUintN(64, advisoryKey(schema));
      const rows = await execute<{ name: string }>(
        db.kysely,
        `select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid where l.locktype = 'advisory' and l.granted and l.classid = $1::oid and l.objid = $2::oid`,
        [(key >> 32n).toString(), (key & 0xffffffffn).toString()],
      );
      await db.close();
      const m = /^idx-node pid (\d+) /.exec(rows[0]?.name ?? '');
      if (m) return Number(m[1]);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the first node never took the writer lock');
}

for (const kind of BACKENDS) {
  t.test(`${kind}: a second node (and force-clean) on the same database is refused naming the first; after SIGKILL a restart works`, async (t) => {
    const dir = await copyProject(t, built);
    const env = envFor(kind);
    const schema = uniqueSchemaName('idx_e2e');
    if (kind === 'postgres') {
      t.teardown(async () => {
        const db = await createDb({ env });
        await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
        await db.close();
      });
    }
    const args = ['--network-endpoint', anvil.url, '--db-schema', schema, '--batch-size', '2'];
    // The first node follows the chain until the checks below are done, then is killed once it has
    // committed a block (on a loaded machine it may not have yet), so that the restart has one to resume after.
    let checked!: () => void;
    const checksDone = new Promise<void>((resolve) => (checked = resolve));
    const first = runNodeCli(dir, env, args, { killAt: workload.fromBlock, killAfter: checksDone });
    const pid = await lockHolderPid(kind, dir, schema);

    const second = await runNodeCli(dir, env, args);
    t.equal(second.code, 1, 'the second node exits 1');
    t.match(
      second.output,
      kind === 'pglite'
        ? new RegExp(`the embedded database in ${join(dir, '.idx-data')} is in use by idx-node \\(pid ${pid} on `)
        : new RegExp(`schema "${schema}" on PostgreSQL at .* is being written by idx-node pid ${pid} on `),
    );
    const logger = createLogger({ level: 'silent', format: 'json' });
    await t.rejects(forceClean({ ...nodeOptions(dir, anvil.url, ['--db-schema', schema]), idx: dir }, logger, env), {
      code: 'DB_LOCKED',
      message: new RegExp(`pid ${pid}`),
    });

    checked();
    const killed = await first;
    t.equal(killed.signal, 'SIGKILL', `the first node was killed after block ${killed.lastSeen}`);
    const restart = await runNodeCli(dir, env, args, { until: workload.toBlock });
    t.equal(restart.code, 0, 'a restart after the kill takes the lock over and indexes to the end');
    t.match(restart.output, /resuming after block \d+/);
    t.equal(restart.lastSeen, workload.toBlock);
  });
}
