import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { startAnvil } from '../devchain/start-anvil.ts';
import type { PgliteSocketEndpoint } from '../infra/postgres/pglite-socket-endpoint.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { BIN, programEnv } from '../test/support/idx-programs.ts';
import { buildErc20Project } from '../test/support/erc20-starter.ts';
import { copyProject } from '../test/support/project-copies.ts';
import { freePortGuess } from '../test/support/node-ports.ts';
import type { Benchmark } from './run.ts';
import { teardowns } from './teardowns.ts';

/**
 * `npm run bench -- attack` (with query-attack): idx-node on its embedded database follows anvil
 * (a block of 20 transfers every 500 ms, --unfinalized-blocks, a flush every second) while clients of the database's
 * socket attack it for SECONDS: slow readers (BEGIN, a lock, a statement every 500 ms, with the
 * owner's login and idx-query's; back as soon as they are dropped) and huge messages (a Q declaring
 * 2 GB streamed in 1 MB chunks, logged in, and a 2 GB startup packet, not). Measures, before and
 * during the attacks: the longest pause of the node's indexing (time between two rises of
 * /meta's lastProcessedHeight; the goal: never more than 2 s), /meta's latency (asked every
 * 100 ms; the goal: answered throughout), and the node's memory (VmRSS, VmHWM).
 */
const SECONDS = Number(process.env.BENCH_SOCKET_ATTACK_SECONDS ?? 20);
const BASELINE_SECONDS = 8;

interface Watch {
  /** longest time between two rises of lastProcessedHeight, ms */
  maxPause: number;
  metaMs: number[];
  metaFailed: number;
  height: number;
}

async function run(): Promise<void> {
  const td = teardowns();
  try {
    const anvil = await startAnvil();
    td.teardown(() => anvil.stop());
    const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
    const shape = { transfersPerBlock: 20, approvalsPerBlock: 0, senders: 20, recipients: 100 };
    const first = await makeErc20Workload(client, { ...shape, blocks: 1 });
    const dir = await copyProject(td, await buildErc20Project(td));
    const port = freePortGuess();
    const node: ChildProcess = spawn(
      process.execPath,
      [
        '--no-node-snapshot',
        BIN('idx-node'),
        '-f',
        dir,
        '--network-endpoint',
        anvil.url,
        '--unfinalized-blocks',
        '--store-flush-interval',
        '1',
        '-p',
        String(port),
        '--log-level',
        'warn',
      ],
      { env: programEnv({}), stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const exited = new Promise<void>((r) => node.once('exit', () => r()));
    td.teardown(async () => {
      node.kill('SIGTERM');
      await exited;
    });
    const meta = async () => {
      const started = performance.now();
      const m = (await fetch(`http://127.0.0.1:${port}/meta`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.json())) as {
        lastProcessedHeight?: number;
      };
      return { height: m.lastProcessedHeight ?? 0, ms: performance.now() - started };
    };
    for (let i = 0; ((await meta().catch(() => ({ height: 0 }))).height ?? 0) < first.toBlock; i++) {
      if (i > 1200) throw new Error('the node did not index the first block');
      await new Promise((r) => setTimeout(r, 100));
    }
    const endpoint = JSON.parse(await readFile(join(dir, '.idx-data', 'idx-socket.json'), 'utf8')) as PgliteSocketEndpoint;
    const vm = async (key: string) =>
      Number(/(\d+)/.exec((await readFile(`/proc/${node.pid}/status`, 'utf8')).split('\n').find((l) => l.startsWith(key)) ?? '')?.[1] ?? 0) / 1024;

    // the chain moves: a block every 500 ms
    let mining = true;
    const miner = (async () => {
      for (let i = 0; mining; i++) {
        const started = performance.now();
        await makeErc20Workload(client, { ...shape, blocks: 1, token: first.token, seed: i + 1 });
        await new Promise((r) => setTimeout(r, Math.max(0, 500 - (performance.now() - started))));
      }
    })();

    const watch = async (seconds: number): Promise<Watch> => {
      const w: Watch = { maxPause: 0, metaMs: [], metaFailed: 0, height: 0 };
      let lastRise = performance.now();
      const until = Date.now() + seconds * 1000;
      while (Date.now() < until) {
        const m = await meta().catch(() => undefined);
        const now = performance.now();
        if (m === undefined) w.metaFailed++;
        else {
          w.metaMs.push(m.ms);
          if (m.height > w.height) {
            if (w.height > 0) w.maxPause = Math.max(w.maxPause, now - lastRise);
            w.height = m.height;
            lastRise = now;
          }
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      w.maxPause = Math.max(w.maxPause, performance.now() - lastRise);
      return w;
    };
    const show = (label: string, w: Watch, rss: number) => {
      const ms = [...w.metaMs].sort((a, b) => a - b);
      console.log(
        `  ${label}: indexing's longest pause ${(w.maxPause / 1000).toFixed(2)} s${w.maxPause > 2000 ? ' (OVER 2 s)' : ''}; ` +
          `/meta ${ms.length} answers, ${w.metaFailed} failed, p50 ${ms[Math.floor(ms.length / 2)]?.toFixed(0)} ms, max ${ms.at(-1)?.toFixed(0)} ms; ` +
          `node RSS ${rss.toFixed(0)} MB`,
      );
    };
    console.log(`idx-node follows anvil (a block every 500 ms) on its embedded database; RSS ${(await vm('VmRSS:')).toFixed(0)} MB`);
    const base = await watch(BASELINE_SECONDS);
    show(`baseline, ${BASELINE_SECONDS} s`, base, await vm('VmRSS:'));

    let attacking = true;
    const outcomes = new Map<string, number>();
    const note = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);

    const slowReader = async (login: { user: string; password: string }, lock: string) => {
      while (attacking) {
        const c = new pg.Client({ host: endpoint.host, port: endpoint.port, user: login.user, password: login.password, database: 'postgres' });
        let dropped = '';
        c.on('error', (e) => (dropped = (e as { code?: string }).code ?? e.message));
        try {
          await c.connect();
          await c.query('begin');
          await c.query(lock).catch(() => undefined);
          while (attacking && dropped === '') {
            await new Promise((r) => setTimeout(r, 500));
            await c.query('select 1').catch(() => (dropped ||= 'query failed'));
          }
        } catch (err) {
          dropped ||= (err as Error).message;
        }
        note(`slow reader (${login.user}) ${dropped === '' ? 'still holding at the end' : `dropped: ${dropped}`}`);
        await c.end().catch(() => undefined);
      }
    };

    const hugeMessage = async (loggedIn: boolean) => {
      while (attacking) {
        let sock: Socket;
        let pgc: pg.Client | undefined;
        if (loggedIn) {
          pgc = new pg.Client({ host: endpoint.host, port: endpoint.port, user: endpoint.owner.user, password: endpoint.owner.password, database: 'postgres' });
          pgc.on('error', () => undefined);
          await pgc.connect();
          sock = (pgc as unknown as { connection: { stream: Socket } }).connection.stream;
          const header = Buffer.alloc(5);
          header.write('Q');
          header.writeInt32BE(2 ** 31 - 1, 1);
          sock.write(header);
        } else {
          sock = endpoint.host.startsWith('/')
            ? netConnect({ path: join(endpoint.host, '.s.PGSQL.5432') })
            : netConnect({ host: endpoint.host, port: endpoint.port });
          const header = Buffer.alloc(8);
          header.writeInt32BE(2 ** 31 - 1, 0);
          header.writeInt32BE(196608, 4);
          sock.write(header);
        }
        let open = true;
        sock.on('error', () => (open = false));
        sock.on('close', () => (open = false));
        const chunk = Buffer.alloc(1024 * 1024, 0x61);
        let sent = 0;
        while (open && attacking && sent < 2048) {
          if (!sock.write(chunk)) await new Promise((r) => setTimeout(r, 10));
          sent++;
          await new Promise((r) => setImmediate(r));
        }
        note(`huge message (${loggedIn ? 'logged in' : 'startup packet'}): ${open ? `still open after ${sent} MB` : `closed after ${sent} MB`}`);
        sock.destroy();
        await pgc?.end().catch(() => undefined);
      }
    };

    const attacks = [
      slowReader(endpoint.owner, 'lock table erc20.accounts in access exclusive mode'),
      slowReader(endpoint.reader, 'lock table erc20.accounts in access share mode'),
      hugeMessage(true),
      hugeMessage(false),
    ];
    const hwmBefore = await vm('VmHWM:');
    const under = await watch(SECONDS);
    const rss = await vm('VmRSS:');
    attacking = false;
    await Promise.all(attacks);
    show(`under attack, ${SECONDS} s`, under, rss);
    console.log(`  the attacks' added pause: ${((under.maxPause - base.maxPause) / 1000).toFixed(2)} s (goal: under 2 s)`);
    console.log(`  node's peak RSS ${hwmBefore.toFixed(0)} MB before the attacks, ${(await vm('VmHWM:')).toFixed(0)} MB after`);
    for (const [what, n] of [...outcomes].sort()) console.log(`  ${n} × ${what}`);
    mining = false;
    await miner;
  } finally {
    await td.run();
  }
}

const bench: Benchmark = { name: 'socket-attack', run };
export default bench;
