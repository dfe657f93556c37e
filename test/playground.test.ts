import { rm } from 'node:fs/promises';
import type { BrowserContext, Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { queryFeatures } from '../apps/query/query-features.ts';
import { parseQueryArgs } from '../apps/query/query-options.ts';
import { runQuery } from '../apps/query/run-query.ts';
import type { StoreOperation } from '../domain/entities/entity-store.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { createEntityStore } from '../infra/postgres/create-entity-store.ts';
import { installNotifyTriggers } from '../infra/postgres/notify-triggers.ts';
import { openPgliteSocketDb, publishPgliteSocket } from '../infra/postgres/pglite-socket-endpoint.ts';
import { prepareProjectSchema } from '../infra/postgres/prepare-project-schema.ts';
import { launchHeadlessChromium } from './support/headless-chromium.ts';
import { freshPgliteDir } from './support/test-backends.ts';
import { entity, schemaModel } from './support/test-models.ts';

/**
 * The playground as a user meets it: GraphiQL in headless Chromium (the build an npm package ships,
 * see support/headless-chromium.ts), loaded from idx's own files, running a query and a subscription, with nothing fetched
 * from anywhere but the query service.
 */
// one parent test: the root must not end while Chromium starts
t.test('the playground in Chromium', main);

async function main(t: Test) {
  const model = schemaModel([entity('Account', { name: 'String', balance: 'BigInt' })]);
  const schema = 'playground_test';
  const dir = await freshPgliteDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const node = await createDb({ env: {}, dataDir: dir });
  t.teardown(() => node.close());
  const options = { schema, historical: true, timestampField: true };
  await prepareProjectSchema(node.kysely, model, options);
  await installNotifyTriggers(node.kysely, model, options);
  const store = createEntityStore({ db: node.kysely, schema, model, historical: true, timestampField: true });
  await store.setMetadata({ schema: model });
  const set = (id: string, height: number, balance: bigint): StoreOperation => ({
    entity: 'Account',
    id,
    height,
    op: 'set',
    data: { id, name: `name-${id}`, balance },
  });
  await store.flush({ operations: [set('alice', 1, 10n ** 24n), set('bob', 1, 5n)] });

  const socket = await publishPgliteSocket(node, dir);
  t.teardown(() => socket.close());
  const db = await openPgliteSocketDb(dir);
  t.teardown(() => db.close());
  const settings = { 'editor.theme': 'dark', headers: { 'x-idx-playground': 'yes' }, 'schema.polling.enable': false };
  const cmd = parseQueryArgs(
    [
      '-n',
      schema,
      '--playground',
      '--subscription',
      '--playground-settings',
      JSON.stringify(settings),
      '--port',
      String(20000 + Math.floor(Math.random() * 20000)),
    ],
    {
      version: 't',
      cwd: process.cwd(),
      write: () => {},
    },
  );
  if (cmd.command !== 'run') throw new Error('expected run');
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(l) });
  const running = await runQuery({ options: cmd.options, logger, version: 't', env: {}, db, features: queryFeatures(cmd.options) });
  t.teardown(() => running.close());
  const url = `http://localhost:${running.port}/`;
  t.match(lines.join(''), /schema\.polling\.enable has no effect in GraphiQL and is ignored/, 'settings without a GraphiQL meaning are reported');

  const context: BrowserContext = await launchHeadlessChromium(t);
  const requested: string[] = [];
  const graphqlHeaders: Record<string, string>[] = [];
  context.on('request', (r) => {
    requested.push(r.url());
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/') graphqlHeaders.push(r.headers());
  });
  const page: Page = context.pages()[0] ?? (await context.newPage());
  page.on('websocket', (ws) => requested.push(ws.url()));
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  await t.test('GraphiQL loads with the schema ready and runs the sample query', async (t) => {
    const res = await page.goto(url);
    t.equal(res?.status(), 200);
    await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
    t.equal(await page.title(), 'playground_test · idx GraphQL');
    t.ok(await page.evaluate(() => document.body.classList.contains('graphiql-dark')), 'editor.theme applied');
    // the schema arrived: the documentation explorer lists the entity connection
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.click('.graphiql-doc-explorer-content a.graphiql-doc-explorer-type-name:has-text("Query")');
    await page.waitForSelector('.graphiql-doc-explorer-content :text("accounts")', { timeout: 15_000 });
    await page.click('.graphiql-execute-button');
    const response = await waitForResponse(page, (text) => text.includes('"totalCount": 2'));
    t.match(response, /"balance": "1000000000000000000000000"/, 'the sample query answered from the indexed rows');
    t.ok(
      graphqlHeaders.some((h) => h['x-idx-playground'] === 'yes'),
      'headers from --playground-settings are sent',
    );
  });

  await t.test('a subscription from the playground receives changes', async (t) => {
    await page.evaluate(() => {
      const cm = (document.querySelector('.graphiql-query-editor .CodeMirror') as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror;
      cm.setValue('subscription { accounts { id mutation_type _entity { name balance } } }');
    });
    // GraphiQL parses the edited query a moment later; only then does its fetcher pick the WebSocket
    await new Promise((r) => setTimeout(r, 1000));
    await page.click('.graphiql-execute-button');
    // the subscription listens a moment after it is sent: write until a change shows
    let height = 2;
    let seen = '';
    const until = Date.now() + 30_000;
    while (!seen.includes('"mutation_type": "UPDATE"') && Date.now() < until) {
      await store.flush({ operations: [set('bob', height++, BigInt(height))] });
      seen = await responseText(page);
      if (!seen.includes('UPDATE')) await new Promise((r) => setTimeout(r, 500));
    }
    t.match(seen, /"id": "bob",\s*"mutation_type": "UPDATE"/);
  });

  t.test('nothing was fetched from anywhere but the query service', async (t) => {
    const foreign = requested.filter((u) => !/^(https?|wss?):\/\/localhost:\d+\//.test(u) && !u.startsWith('data:'));
    t.same(foreign, []);
    t.ok(
      requested.some((u) => u.endsWith('/_playground/graphiql.min.js')),
      'GraphiQL came from the service',
    );
    t.ok(
      requested.some((u) => u.startsWith('ws://localhost:')),
      "the subscription went over the service's own WebSocket",
    );
    t.same(pageErrors, [], 'no script errors');
  });
}

async function responseText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.querySelector('.graphiql-response .CodeMirror') as unknown as { CodeMirror?: { getValue(): string } } | null;
    return el?.CodeMirror?.getValue() ?? '';
  });
}

async function waitForResponse(page: Page, done: (text: string) => boolean): Promise<string> {
  const until = Date.now() + 20_000;
  let text = '';
  while (Date.now() < until) {
    text = await responseText(page);
    if (done(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  return text;
}
