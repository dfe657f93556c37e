import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { envFor, openDb, PROGRAM_BACKEND } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { BIN, programEnv, REPO } from './support/idx-programs.ts';
import { copyProject } from './support/project-copies.ts';
import { freePortGuess } from './support/node-ports.ts';
import { slowDownTransfers } from './support/starter-mapping.ts';
import { spawnWatchedNode } from './support/watched-node.ts';
import { launchHeadlessChromium } from './support/headless-chromium.ts';
import { uniqueSchemaName } from './support/test-backends.ts';

/**
 * `idx-node --status-page` as a user meets it: the node indexing anvil, the page open in headless
 * Chromium (support/headless-chromium.ts), its heights moving until the node is caught up, with
 * nothing fetched from anywhere but the node. Without the flag the node answers as the reference
 * says; and a second node asked for the first one's port says who holds it and where it went.
 */
// one parent test: the root must not end while Chromium starts
t.test('the status page in Chromium', main);

async function main(t: Test) {
  const { anvil, workload, built } = await setupErc20Chain(t);
  const env = envFor(PROGRAM_BACKEND);
  const dir = await copyProject(t, built);
  // ~8 s of indexing (800 transfers of 10 ms), committed every second: long enough to watch
  await slowDownTransfers(dir, 10);
  const schema = uniqueSchemaName('idx_status');
  const node = spawnWatchedNode(
    dir,
    env,
    ['--network-endpoint', anvil.url, '--db-schema', schema, '--status-page', '--store-flush-interval', '1', '--batch-size', '5'],
    () => {},
    60_000,
  );
  t.teardown(() => stopAndDrop(node, dir, schema));
  const url = await waitFor(
    () => /status page: (http:\/\/localhost:\d+)\//.exec(node.output())?.[1],
    60_000,
    () => node.output(),
  );
  const port = Number(new URL(url).port);
  t.match(node.output(), new RegExp(`serving /health, /meta, /ready and /metrics on http://localhost:${port}\\b`), 'the address is logged');

  const context: BrowserContext = await launchHeadlessChromium(t);
  const requested: string[] = [];
  context.on('request', (r) => requested.push(r.url()));
  const page: Page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  await t.test('the page shows the heights moving while the node indexes', async (t) => {
    const res = await page.goto(`${url}/`);
    t.equal(res?.status(), 200);
    t.match(res?.headers()['content-type'], /text\/html/);
    // a string, not a function: the test's TypeScript transform would wrap a function's inner names in helpers the page lacks
    const read = () =>
      page.evaluate<{ indexed: string; final: string; best: string; percent: string; bar: string; health: string }>(`({
        indexed: document.getElementById('indexed').textContent,
        final: document.getElementById('final').textContent,
        best: document.getElementById('best').textContent,
        percent: document.getElementById('percent').textContent,
        bar: document.getElementById('bar-fill').style.width,
        health: document.getElementById('health').textContent,
      })`);
    const seen = new Set<number>();
    let last = await read();
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      last = await read();
      if (/^\d+$/.test(last.indexed)) seen.add(Number(last.indexed));
      if (Number(last.indexed) === workload.toBlock) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    if (Number(last.indexed) !== workload.toBlock) t.fail(`the page shows ${JSON.stringify(last)}; the node's log ends:\n${node.output().slice(-3000)}`);
    t.ok(seen.size >= 3, `the page showed the height moving: ${[...seen].join(', ')}`);
    t.ok(Number(last.final) >= workload.toBlock, `the final head: ${last.final}`);
    t.ok(Number(last.best) >= Number(last.final), `the best head (${last.best}) is at or above the final one`);
    // caught up: every final block is in; the bar is full
    await page.waitForFunction(() => document.getElementById('health')!.textContent === 'caught up', undefined, { timeout: 15_000 });
    const done = await read();
    t.match(done.percent, /^100\.0% of blocks \d+\.\.\d+$/);
    t.equal(done.bar, '100%');
    // the pace over time: a drawn line once two samples are in
    await page.waitForSelector('#chart polyline', { timeout: 15_000 });
    t.ok(await page.$$eval('#chart polyline', (lines) => lines.every((l) => (l.getAttribute('points') ?? '').split(' ').length >= 2)), 'the chart has lines');
    t.match(await page.textContent('#sources'), /ethereum\/Runtime.*handleTransfer \(ethereum\/LogHandler\)/s, 'the data sources');
    t.match(await page.textContent('#endpoints'), /http:\/\/127\.0\.0\.1:\d+/, 'the endpoint');
    const links = await page.$$eval('.links a', (as) => as.map((a) => (a as HTMLAnchorElement).href));
    t.same(links, [`${url}/meta`, `${url}/metrics`, `${url}/health`], 'links to /meta, /metrics and /health');
    t.match(await page.textContent('#playground'), /idx-query -f <project> --playground/, 'how to get a playground when none runs');
    t.same(pageErrors, [], 'no script errors');
    t.same(
      requested.filter((u) => !u.startsWith(`${url}/`)),
      [],
      'nothing is fetched from anywhere but the node',
    );
  });

  await t.test('/status: the figures as JSON; / for scripts stays the reference 404', async (t) => {
    const status = (await (await fetch(`${url}/status`)).json()) as Record<string, unknown>;
    t.match(status, { indexedHeight: workload.toBlock, caughtUp: true, percent: 100, etaSeconds: 0, health: { healthy: true }, chain: '31337' });
    const forScripts = await fetch(`${url}/`, { headers: { accept: 'application/json' } });
    t.same(
      { status: forScripts.status, body: await forScripts.json() },
      { status: 404, body: { statusCode: 404, message: 'Cannot GET /', error: 'Not Found' } },
    );
  });

  await t.test('the playground and the status page link to each other', async (t) => {
    const args = ['-f', dir, '-n', schema, '--playground', '--port', String(freePortGuess())];
    // embedded, the two find each other through the project's data folder; on PostgreSQL through --indexer
    if (PROGRAM_BACKEND === 'postgres') args.push('--indexer', url);
    const query = spawn(process.execPath, ['--no-node-snapshot', BIN('idx-query'), ...args], { env: programEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    query.stdout.on('data', (d) => (output += d));
    query.stderr.on('data', (d) => (output += d));
    const exited = new Promise((r) => query.on('exit', r));
    t.teardown(async () => {
      query.kill('SIGTERM');
      await exited;
    });
    const queryUrl = await waitFor(
      () => /serving GraphQL .* at (http:\/\/localhost:\d+)\//.exec(output)?.[1],
      60_000,
      () => output,
    );
    const html = await (await fetch(`${queryUrl}/`, { headers: { accept: 'text/html' } })).text();
    t.match(html, `<a href="${url}/" target="_blank" rel="noopener">indexer status ↗</a>`, 'the playground links to the status page');
    if (PROGRAM_BACKEND === 'pglite') {
      await page.goto(`${url}/`);
      await page.waitForSelector('#playground a', { timeout: 15_000 });
      t.equal(await page.getAttribute('#playground a', 'href'), `${queryUrl}/`, 'the status page links to the playground');
    }
    for (const starter of ['erc20', 'substrate']) {
      const pkg = JSON.parse(await readFile(join(REPO, 'examples', starter, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
      t.match(pkg.scripts.start, /--status-page/, `idx init's ${starter} starter: npm start turns the page on`);
    }
  });

  await t.test('without --status-page, and on a busy port: the reference 404s, and a warning naming the port, its holder and the port taken', async (t) => {
    const other = await copyProject(t, built);
    const otherSchema = uniqueSchemaName('idx_status');
    const second = spawnWatchedNode(other, env, ['--network-endpoint', anvil.url, '--db-schema', otherSchema, '-p', String(port)], () => {}, 60_000);
    t.teardown(() => stopAndDrop(second, other, otherSchema));
    const served = await waitFor(
      () => /serving \/health, \/meta, \/ready and \/metrics on http:\/\/localhost:(\d+)/.exec(second.output())?.[1],
      60_000,
      () => second.output(),
    );
    t.not(Number(served), port, 'moved to another port');
    t.match(
      second.output(),
      new RegExp(
        `WARN port ${port} is in use by another idx-node \\(project [\\w-]+, chain 31337, at block \\d+\\); serving on port ${served} instead \\(choose one with -p, --port\\)`,
      ),
      'the warning names the busy port, who holds it and the port taken',
    );
    const base = `http://localhost:${served}`;
    for (const [path, accept] of [
      ['/', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
      ['/status', 'application/json'],
    ] as const) {
      const res = await fetch(`${base}${path}`, { headers: { accept } });
      t.same(
        { status: res.status, body: await res.json() },
        { status: 404, body: { statusCode: 404, message: `Cannot GET ${path}`, error: 'Not Found' } },
        `${path}: 404 JSON without --status-page`,
      );
    }
    t.equal((await fetch(`${base}/meta`)).status, 200, '/meta answers');
  });
}

/** Stops a node the test started and drops the schema it wrote. */
async function stopAndDrop(node: ReturnType<typeof spawnWatchedNode>, dir: string, schema: string): Promise<void> {
  node.child.kill('SIGTERM');
  await node.exited;
  const db = await openDb(PROGRAM_BACKEND, dir);
  await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
  await db.close();
}

async function waitFor<T>(probe: () => T | undefined, ms: number, context: () => string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out; output so far:\n${context().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
