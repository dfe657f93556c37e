import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { freeBytes } from '../infra/postgres/disk-space-guard.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { openDb } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

const MiB = 1024 * 1024;

/** A small tmpfs in a new folder, unmounted when the file's tests end; undefined where it cannot be mounted. */
async function mountSmallDisk(): Promise<string | undefined> {
  const disk = await mkdtemp(join(tmpdir(), 'idx-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=120m', 'tmpfs', disk], { stdio: 'ignore' });
  } catch {
    await rmdir(disk);
    return undefined;
  }
  t.teardown(async () => {
    execFileSync('umount', ['-l', disk], { stdio: 'ignore' });
    await rmdir(disk);
  });
  return disk;
}

const root = process.getuid?.() === 0;
const disk = root ? await mountSmallDisk() : undefined;

t.test(
  'PGlite with too little disk left: the node stops with DISK_FULL instead of hanging, and runs once space is freed',
  { skip: !root ? 'needs root to mount a small tmpfs' : disk === undefined ? 'mount -t tmpfs failed here' : false },
  async (t) => {
    if (disk === undefined) throw new Error('unreachable: skipped without a disk');
    const { anvil, workload, built } = await setupErc20Chain(t, 10);
    const dir = join(disk, 'erc20');
    await cp(built, dir, { recursive: true, filter: (src) => !src.includes('.idx-data') });
    const run = (stopAtHeight: number) =>
      runNode({
        options: nodeOptions(dir, anvil.url),
        logger: createLogger({ level: 'silent', format: 'json' }),
        version: 'test',
        env: {},
        signal: new AbortController().signal,
        settings: { stopAtHeight },
        diskGuard: { minFreeBytes: 8 * MiB },
      });
    await run(workload.fromBlock + 2);

    // leave 4 MiB free, below the node's margin of 8
    const filler = join(disk, 'filler');
    await writeFile(filler, Buffer.alloc((await freeBytes(disk)) - 4 * MiB));
    await t.rejects(run(workload.toBlock), {
      code: 'DISK_FULL',
      message: `only 4.0 MiB free on the disk of the embedded database in ${join(dir, '.idx-data')}; idx stops below 8.0 MiB so that the database never runs out of space mid-write. Free some space and start again: indexing resumes after the last committed block.`,
    });

    await rm(filler);
    await run(workload.toBlock);
    const db = await openDb('pglite', dir);
    t.teardown(() => db.close());
    const meta = await db.kysely.withSchema('erc20').selectFrom('_metadata').select('value').where('key', '=', 'lastProcessedHeight').executeTakeFirst();
    t.equal(Number(meta?.value), workload.toBlock, 'indexed to the end once space was freed');
  },
);
