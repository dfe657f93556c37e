import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ENDPOINT_FILE, openPgliteSocketDb } from '../infra/postgres/pglite-socket-endpoint.ts';
import { execute } from '../infra/postgres/sql.ts';
import { openDb } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { BIN, programEnv } from './support/idx-programs.ts';
import { runNodeCli } from './support/watched-node.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { mountTmpfs, noTmpfs } from './support/tmpfs-mount.ts';

exitWhenDone();

const run = promisify(execFile);

t.test(
  'a data folder that is a mount point (a Docker volume at <project>/.idx-data): first start, a restart after SIGKILL, force-clean and a start after it all work',
  { skip: noTmpfs },
  async (t) => {
    const { anvil, workload, built } = await setupErc20Chain(t, 10);
    const parent = await mkdtemp(join(tmpdir(), 'idx-e2e-mount-'));
    const dir = join(parent, 'erc20');
    await cp(built, dir, { recursive: true, filter: (src) => !src.includes('.idx-data') });
    const dataDir = join(dir, '.idx-data');
    // as a volume arrives: an empty folder, a file system of its own, mode 755
    const unmount = await mountTmpfs(dataDir);
    t.teardown(async () => {
      unmount();
      await rm(parent, { recursive: true, force: true });
    });
    const mounted = async () => (await stat(dataDir)).dev !== (await stat(dir)).dev;
    const args = ['--network-endpoint', anvil.url, '--batch-size', '2'];
    const transfersIndexed = async () => {
      const db = await openDb('pglite', dir);
      try {
        const [row] = await execute<{ n: string }>(db.kysely, `select count(*)::text as n from erc20.transfers where block_height between $1 and $2`, [
          workload.fromBlock,
          workload.toBlock,
        ]);
        return Number(row?.n);
      } finally {
        await db.close();
      }
    };

    // First start, read through the socket in the mount while it runs, then killed: its lock and endpoint files stay behind.
    let checked!: () => void;
    const checksDone = new Promise<void>((resolve) => (checked = resolve));
    const first = runNodeCli(dir, {}, args, { killAt: workload.fromBlock + 2, killAfter: checksDone });
    let ended = false;
    void first.then(() => (ended = true));
    while (!ended && !existsSync(join(dataDir, ENDPOINT_FILE))) await new Promise((r) => setTimeout(r, 50));
    if (!ended) {
      const reader = await openPgliteSocketDb(dataDir);
      t.same(await execute(reader.kysely, 'select 1 as one'), [{ one: 1 }], 'idx-query reaches the node through the socket in the mount');
      await reader.close();
    }
    checked();
    const killed = await first;
    if (killed.timedOut) t.fail(`the first run never reached block ${workload.fromBlock + 2}; its log ends:\n${killed.output.slice(-3000)}`);
    t.notMatch(killed.output, /EBUSY|cannot create the embedded database/);
    t.equal(killed.signal, 'SIGKILL', 'the first run indexed until killed');
    t.match(killed.output, `serving the embedded database to idx-query on ${join(dataDir, '.s.PGSQL.5432')}`, 'the socket is in the data folder');
    t.ok(await mounted(), 'the data folder is still the mount point');
    t.ok(existsSync(join(dataDir, 'pgdata', 'PG_VERSION')), 'the database is in its pgdata subfolder');
    t.same(
      (await readdir(dir)).filter((n) => n.startsWith('.idx-data')),
      ['.idx-data'],
      'no copy made beside the mount',
    );

    const restart = await runNodeCli(dir, {}, args, { until: workload.toBlock });
    if (restart.timedOut) t.fail(`the restart never reached block ${workload.toBlock}; its log ends:\n${restart.output.slice(-3000)}`);
    t.equal(restart.code, 0, 'SIGTERM stops the restarted node cleanly');
    t.match(restart.output, /resuming after block \d+/, 'the restart resumes on the data the first run kept');
    t.equal(await transfersIndexed(), workload.transfers, "every Transfer of the workload is indexed, the first run's kept");

    await run(process.execPath, ['--no-node-snapshot', BIN('idx-node'), 'force-clean', '-f', dir], { env: programEnv() });
    t.ok(await mounted(), 'force-clean leaves the mount in place');
    const db = await openDb('pglite', dir);
    t.same(await execute(db.kysely, `select 1 from information_schema.schemata where schema_name = 'erc20'`), [], 'force-clean dropped the schema');
    await db.close();

    const again = await runNodeCli(dir, {}, args, { until: workload.toBlock });
    if (again.timedOut) t.fail(`the start after force-clean never reached block ${workload.toBlock}; its log ends:\n${again.output.slice(-3000)}`);
    t.equal(again.code, 0, 'the start after force-clean stops cleanly');
    t.notMatch(again.output, /resuming after block/, 'a start after force-clean begins anew');
    t.equal(await transfersIndexed(), workload.transfers, 'and indexes everything again');
  },
);
