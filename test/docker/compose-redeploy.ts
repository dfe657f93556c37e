// `npm run test:docker`, second part: docs/deploy.md's redeploy flow "With compose", run step by step
// as written, on docker/compose.project.yml with examples/erc20 and the demo chain: version 1 served,
// version 2 (a changed block handler) built by the stack's `project` service, indexed by a one-off
// node with `--promote app --reuse app`, idx-query switching by itself, the indexing handed over to
// the `node` service, the old schema dropped. A query every 100 ms across all of it must never fail
// or come back empty. Host networking, as compose-stack.ts, for the same reason.
import { spawn } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { parse } from 'yaml';
import { REPO } from '../support/idx-programs.ts';
import { composeStack, gql, ok, rpc, run, until, type Ports } from './docker-run.ts';

type Service = Record<string, any>;

/** docker/compose.project.yml on the host's network and the given ports; everything else as written. */
export function projectStackVariant(source: string, ports: Ports): string {
  const doc = parse(source, { merge: true }) as { services: Record<string, Service>; [key: string]: unknown };
  for (const key of Object.keys(doc)) if (key.startsWith('x-')) delete doc[key];
  for (const [name, service] of Object.entries(doc.services)) {
    service.network_mode = 'host';
    delete service.ports;
    delete service.extra_hosts;
    if (service.build) service.build = { ...service.build, context: REPO, network: 'host' };
    const env = service.environment as Record<string, string> | undefined;
    if (env?.DB_HOST) Object.assign(env, { DB_HOST: '127.0.0.1', DB_PORT: String(ports.postgres) });
    // docker-compose 1.29 links a one-off container (`run`) to the services it depends on, which host
    // networking refuses; the test starts the services in that order itself
    if (name === 'node') delete service.depends_on;
    if (name === 'postgres') {
      service.environment = { ...env, PGPORT: String(ports.postgres) };
      service.command = ['postgres', '-c', 'listen_addresses=127.0.0.1'];
    } else if (name === 'node' || name === 'query') {
      const command = service.command as string[];
      service.command = command.map((arg) =>
        arg
          .replace('--port 3000', `--port ${ports.node}`)
          .replace('--port 3001', `--port ${ports.query}`)
          .replace('http://node:3000', `http://127.0.0.1:${ports.node}`),
      );
      env!.IDX_HEALTH_PORT = String(ports[name]);
    }
  }
  return JSON.stringify(doc, null, 2);
}

async function sql<T extends pg.QueryResultRow>(port: number, text: string): Promise<T[]> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** The StarterEntity rows served, each with the number of the block its id (the block hash) names. */
async function starterRows(ports: Ports): Promise<{ blockHeight: bigint; number: bigint }[]> {
  const data = await gql(ports.query, '{ starterEntities(first: 100, orderBy: BLOCK_HEIGHT_ASC) { nodes { id blockHeight } } }');
  const nodes = data.starterEntities.nodes as { id: string; blockHeight: string }[];
  return Promise.all(
    nodes.map(async (n) => ({
      blockHeight: BigInt(n.blockHeight),
      number: BigInt((await rpc<{ number: string }>(ports.chain, 'eth_getBlockByHash', [n.id, false])).number),
    })),
  );
}

// image builds take minutes
t.setTimeout(40 * 60_000);

t.test('docker compose: the redeploy flow of docs/deploy.md, step by step, without a failed query', async (t) => {
  const stack = await composeStack(t, 'idx-docker-redeploy', 'compose.project.yml', projectStackVariant);
  if (stack === undefined) return;
  const { ports, work } = stack;
  const oneOff = `idx-node-v2-${process.pid}`;
  const app = join(work, 'app');
  const appV2 = join(work, 'app-v2');
  // the settings the stack was started with, exported as a user's shell would keep them
  const base = { IDX_ENDPOINT: `http://127.0.0.1:${ports.chain}`, IDX_UID: String(process.getuid?.() ?? 1000), IDX_PROJECT: app, IDX_SCHEMA: 'app' };
  // docker-compose 1.29 also links a one-off container to its own service's running one, which host
  // networking refuses: one-offs of the node service go under another project name (on the host's
  // network, the same database and ports; on compose's own network the stack's name is what joins them)
  const oneOffs = stack.as(`${stack.project}-run`);
  const must = (env: Record<string, string>, ...args: string[]) => (args[0] === 'run' && args.includes('node') ? oneOffs : stack).must(env, ...args);
  // the client's loop below runs until the end, or the teardown after a failure
  let stop = false;
  const chain = spawn(process.execPath, ['--no-node-snapshot', join(REPO, 'bin', 'demo-chain.js'), '--host', '127.0.0.1', '--port', String(ports.chain)], {
    stdio: 'ignore',
    cwd: REPO,
  });
  t.teardown(async () => {
    stop = true;
    await run('docker', ['rm', '-f', oneOff]);
    // the one-offs' project made its own volumes
    for (const failed of [await oneOffs.down(base), await stack.down(base)]) if (failed !== undefined) t.comment(`teardown: ${failed}`);
    chain.kill('SIGTERM');
  });
  // its first 100 blocks of transfers in
  await until('the demo chain', async () => (Number(await rpc<string>(ports.chain, 'eth_blockNumber', [])) >= 100 ? true : undefined), 180_000);
  await cp(join(REPO, 'examples', 'erc20'), app, { recursive: true, filter: (src) => !/node_modules|\.idx-data|[/\\]dist$/.test(src) });

  // the stack with version 1, serving the deployment "app": up in the order depends_on gives
  await must(base, 'up', '-d', '--build', 'postgres');
  await until('PostgreSQL', async () => (await sql(ports.postgres, 'select 1')).length, 120_000);
  await must(base, 'run', '--rm', '--no-deps', 'project');
  await must(base, 'up', '-d', 'node', 'query');
  await until('the query service /ready', () => ok(`http://127.0.0.1:${ports.query}/ready`), 10 * 60_000);
  await until('the node /ready', () => ok(`http://127.0.0.1:${ports.node}/ready`), 5 * 60_000);
  const v1 = await starterRows(ports);
  t.ok(v1.length > 0 && v1.every((r) => r.blockHeight === r.number), `version 1 serves ${v1.length} StarterEntity rows, blockHeight the block's number`);

  // a client querying every 100 ms from here to the end
  const answers = { ok: 0, failed: [] as string[] };
  const load = (async () => {
    while (!stop) {
      try {
        const data = await gql(ports.query, '{ transfers(first: 1) { totalCount } }');
        if (Number(data.transfers.totalCount) > 0) answers.ok++;
        else answers.failed.push('no transfers');
      } catch (err) {
        answers.failed.push(String(err));
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  // step 1: version 2 built by the stack's project service
  await cp(app, appV2, { recursive: true, filter: (src) => !/[/\\]dist$|src[/\\]types$/.test(src) });
  const mapping = join(appV2, 'src', 'mappings', 'blocks.ts');
  const source = await readFile(mapping, 'utf8');
  t.ok(source.includes('BigInt(block.number)'), 'the starter has the line version 2 changes');
  await writeFile(mapping, source.replace('BigInt(block.number)', 'BigInt(block.number) * 10n'));
  const v2 = { ...base, IDX_PROJECT: appV2 };
  await must(v2, 'run', '--rm', '--no-deps', 'project');

  // step 2: its node into a new schema, reusing what handleTransfer wrote, promoting when caught up
  await must({ ...v2, IDX_SCHEMA: 'app-v2', IDX_NODE_ARGS: '--promote app --reuse app' }, 'run', '-d', '--no-deps', '--name', oneOff, 'node');

  // step 3: the one-off node promotes; the query service switches by itself
  const logs = async (args: string[]) => (await run('docker', args)).output;
  const promoted = await until(
    'promoted: in the one-off node log',
    async () => (await logs(['logs', oneOff])).match(/promoted:.*/)?.[0] ?? undefined,
    10 * 60_000,
  );
  t.comment(promoted);
  t.match(await logs(['logs', oneOff]), /--reuse app: copied/, 'the unchanged handler rows were copied');
  const moved = await until(
    'the query service switched',
    async () => (await stack.dc(base, 'logs', '--no-color', 'query')).output.match(/the deployment "app" moved.*/)?.[0] ?? undefined,
    60_000,
  );
  t.comment(moved);
  const after = await starterRows(ports);
  t.ok(after.length > 0 && after.every((r) => r.blockHeight === r.number * 10n), `version 2 served: ${after.length} rows, blockHeight 10 × the block's number`);

  // step 4: the indexing handed over to the stack's node service
  await run('docker', ['stop', oneOff]);
  await run('docker', ['rm', oneOff]);
  await must({ ...v2, IDX_SCHEMA: 'app-v2' }, 'up', '-d', '--no-deps', 'node');
  await until('the node service on app-v2 /ready', () => ok(`http://127.0.0.1:${ports.node}/ready`), 5 * 60_000);
  const [handedOver] = await sql<{ value: number }>(ports.postgres, `select value from "app-v2"._metadata where key = 'lastProcessedHeight'`);
  const resumed = await until(
    'the node service indexing app-v2 further',
    async () => {
      const [row] = await sql<{ value: number }>(ports.postgres, `select value from "app-v2"._metadata where key = 'lastProcessedHeight'`);
      return Number(row!.value) > Number(handedOver!.value) ? Number(row!.value) : undefined;
    },
    120_000,
  );
  t.ok(resumed, `the node service went on from block ${handedOver!.value} to ${resumed}`);

  // step 5: the old schema dropped
  await must({ ...base, IDX_PROJECT: app }, 'run', '--rm', '--no-deps', 'node', 'idx-node', 'force-clean', '-f', '/project', '--db-schema', 'app');
  const schemas = await sql<{ name: string }>(
    ports.postgres,
    `select schema_name as name from information_schema.schemata where schema_name in ('app', 'app-v2')`,
  );
  t.same(
    schemas.map((s) => s.name),
    ['app-v2'],
    'force-clean dropped the old schema only',
  );

  stop = true;
  await load;
  t.equal(
    answers.failed.length,
    0,
    `${answers.ok} queries across the redeploy, none failed or empty${answers.failed.length ? `: ${answers.failed.slice(0, 3).join('; ')}` : ''}`,
  );
});
