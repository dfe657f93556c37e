// `npm run test:docker`: builds the image and brings the demo stack (docker/compose.yml) up for real,
// then checks it as a user would: GraphQL against the chain, a reindex inside a container, a node
// container killed mid-run and started again. Opt-in (not in `npm test`): it needs a running dockerd,
// docker compose (v2 or docker-compose 1.29) and the base images node:20-bookworm-slim and postgres:16.
//
// Containers use host networking only (some machines allow no other), so the test runs a variant of
// docker/compose.yml that differs only in networking: every service on the host's network on free
// ports (no `ports:` mappings, loopback addresses for service names). Services, images, volumes,
// commands, health checks, dependencies and restart policies are the file's own.
import { join } from 'node:path';
import pg from 'pg';
import t from 'tap';
import { parse } from 'yaml';
import { REPO } from '../support/idx-programs.ts';
import { composeStack, gql, ok, rpc, run, until, type Ports } from './docker-run.ts';

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const SCHEMA = 'erc20';

type Service = Record<string, any>;

/** docker/compose.yml with host networking on `ports`; everything else as written. */
export function hostNetworkVariant(source: string, ports: Ports): string {
  const doc = parse(source, { merge: true }) as { services: Record<string, Service> };
  const loopback = (s: string) =>
    s.replace('http://chain:8545', `http://127.0.0.1:${ports.chain}`).replace('http://node:3000', `http://127.0.0.1:${ports.node}`);
  const withPort = (command: string[], port: number) => command.map((arg, i) => (command[i - 1] === '--port' ? String(port) : loopback(arg)));
  for (const [name, service] of Object.entries(doc.services)) {
    service.network_mode = 'host';
    delete service.ports;
    if (service.build) service.build = { ...service.build, context: REPO, network: 'host' };
    const env = service.environment as Record<string, string> | undefined;
    if (env?.DB_HOST) Object.assign(env, { DB_HOST: '127.0.0.1', DB_PORT: String(ports.postgres) });
    if (name === 'postgres') {
      service.environment = { ...env, PGPORT: String(ports.postgres) };
      service.command = ['postgres', '-c', 'listen_addresses=127.0.0.1'];
    } else if (name === 'chain') {
      // the image's CMD, on another port and on loopback
      service.command = [
        'node',
        'bin/demo-chain.js',
        '--host',
        '127.0.0.1',
        '--port',
        String(ports.chain),
        '--data-dir',
        '/data',
        '--ready-file',
        '/tmp/demo-chain.ready',
      ];
    } else if (name === 'node' || name === 'query') {
      service.command = withPort(service.command as string[], ports[name]);
      env!.IDX_HEALTH_PORT = String(ports[name]);
    }
  }
  // JSON is YAML, and says `"no"` where compose's YAML 1.1 would read a plain no as false
  return JSON.stringify(doc, null, 2);
}

/** Every transfer idx-query serves at `height`, as `<tx hash>-<log index>`, paged as a client would. */
async function indexedTransfers(port: number, height: number): Promise<string[]> {
  const ids: string[] = [];
  let after = '';
  for (;;) {
    const page = await gql(
      port,
      `{ transfers(blockHeight: "${height}", first: 100, orderBy: ID_ASC${after}) { totalCount nodes { id } pageInfo { hasNextPage endCursor } } }`,
    );
    ids.push(...page.transfers.nodes.map((n: { id: string }) => n.id));
    if (!page.transfers.pageInfo.hasNextPage) return ids.sort();
    after = `, after: "${page.transfers.pageInfo.endCursor}"`;
  }
}

/** The chain's Transfer logs of the demo token up to `height`, with the ids the starter gives them. */
async function chainTransfers(port: number, height: number): Promise<string[]> {
  const logs = await rpc<{ transactionHash: string; logIndex: string }[]>(port, 'eth_getLogs', [
    { address: TOKEN, topics: [TRANSFER_TOPIC], fromBlock: '0x0', toBlock: `0x${height.toString(16)}` },
  ]);
  return logs.map((l) => `${l.transactionHash}-${Number(l.logIndex)}`).sort();
}

/**
 * The last block whose entities are committed, from the stack's database (idx-query's _metadata with
 * --indexer gives the node's live height, which may be ahead of its last flush).
 */
async function committedHeight(pgPort: number): Promise<number> {
  const client = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', password: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    const { rows } = await client.query(`select value from ${SCHEMA}._metadata where key = 'lastProcessedHeight'`);
    return Number(rows[0]?.value);
  } finally {
    await client.end();
  }
}

// a cold build alone takes minutes
t.setTimeout(30 * 60_000);

t.test('docker compose: the demo stack builds, indexes the chain, survives a reindex and a killed node', async (t) => {
  const stack = await composeStack(t, 'idx-docker-test', 'compose.yml', hostNetworkVariant);
  if (stack === undefined) return;
  const { ports } = stack;
  const must = (...args: string[]) => stack.must({}, ...args);
  t.teardown(async () => {
    const failed = await stack.down({});
    if (failed !== undefined) t.comment(`teardown: ${failed}`);
  });
  const times: string[] = [];
  const timed = async <T>(label: string, step: () => Promise<T>) => {
    const started = Date.now();
    const value = await step();
    times.push(`${label} ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return value;
  };
  const node = `http://127.0.0.1:${ports.node}`;
  const query = `http://127.0.0.1:${ports.query}`;

  await timed('build', () => must('build'));
  const size = (await run('docker', ['image', 'inspect', 'idx:local', '--format', '{{.Size}}'])).output.trim();
  t.comment(`image idx:local: ${(Number(size) / 1e6).toFixed(0)} MB`);

  await timed('up to /ready', async () => {
    await must('up', '-d');
    await until('the query service /ready', () => ok(`${query}/ready`), 5 * 60_000);
    await until('the node /ready (caught up)', () => ok(`${node}/ready`), 5 * 60_000);
  });

  await t.test('GraphQL answers what the chain holds', async (t) => {
    const meta = await gql(ports.query, '{ _metadata { lastProcessedHeight indexerHealthy chain } }');
    t.equal(meta._metadata.indexerHealthy, true, 'idx-query reaches the node (--indexer)');
    t.equal(meta._metadata.chain, '31337');
    // the workload's 100 blocks end at block 102 or 103 (after the deployment and the mints); the node
    // indexes final blocks, two behind the head, so they are in once the chain's first ticks have passed
    const height = await until(
      'block 104 indexed',
      async () => {
        const h = await committedHeight(ports.postgres);
        return h >= 104 ? h : undefined;
      },
      60_000,
    );
    const indexed = await indexedTransfers(ports.query, height);
    t.ok(indexed.length >= 2010, `${indexed.length} transfers (2,000 and 10 mints at least)`);
    t.same(indexed, await chainTransfers(ports.chain, height), `every Transfer log up to block ${height}, none more`);
    const page = await fetch(`${query}/`, { headers: { accept: 'text/html' } });
    t.match(page.headers.get('content-type') ?? '', /text\/html/, 'the playground is served');
  });

  await t.test('idx-node reindex in a container of the node service', async (t) => {
    await timed('reindex', async () => {
      await must('stop', 'node');
      const out = await must('run', '--rm', '--no-deps', 'node', 'idx-node', 'reindex', '-f', '/project', '--db-schema', SCHEMA, '--targetHeight', '20');
      t.match(out, /20/, 'reindex reports the height');
    });
    t.equal(await committedHeight(ports.postgres), 20, 'the database is back at block 20');
    t.same(await indexedTransfers(ports.query, 20), await chainTransfers(ports.chain, 20), 'transfers up to block 20 kept, the later ones gone');
  });

  await t.test('the node killed at random moments resumes with nothing lost or duplicated', async (t) => {
    await timed('three kills and resume', async () => {
      // SIGKILL, no chance to flush: at start-up, while catching up from block 20, or following the head
      for (let kill = 1; kill <= 3; kill++) {
        await must('start', 'node');
        const delay = 300 + Math.floor(Math.random() * 2700);
        await new Promise((r) => setTimeout(r, delay));
        const live = await fetch(`${node}/meta`, { signal: AbortSignal.timeout(1_000) })
          .then(async (res) => `at block ${((await res.json()) as { lastProcessedHeight?: number }).lastProcessedHeight}`)
          .catch(() => 'not serving yet');
        await must('kill', '-s', 'SIGKILL', 'node');
        const head = Number(BigInt(await rpc<string>(ports.chain, 'eth_blockNumber', [])));
        t.comment(`kill ${kill}, ${delay} ms after start: node ${live}, committed ${await committedHeight(ports.postgres)}, chain head ${head}`);
      }
      await must('start', 'node');
      await until('the node caught up again', () => ok(`${node}/ready`), 5 * 60_000);
    });
    const height = await committedHeight(ports.postgres);
    const indexed = await indexedTransfers(ports.query, height);
    t.equal(new Set(indexed).size, indexed.length, 'no transfer twice');
    t.same(indexed, await chainTransfers(ports.chain, height), `every Transfer log up to block ${height}`);
  });

  await t.test('a project built into an image with docker/project.Dockerfile', async (t) => {
    const image = `idx-docker-test-project:${process.pid}`;
    t.teardown(() => run('docker', ['image', 'rm', '-f', image]));
    await timed('project image', async () => {
      // the classic builder, as docker-compose 1.29 uses: BuildKit needs the buildx plugin, and an entitlement for host networking
      const built = await run(
        'docker',
        ['build', '--network', 'host', '--force-rm', '-f', join(REPO, 'docker', 'project.Dockerfile'), '-t', image, join(REPO, 'examples', 'erc20')],
        {
          DOCKER_BUILDKIT: '0',
        },
      );
      t.equal(built.code, 0, built.code === 0 ? 'built' : built.output.slice(-3000));
    });
    const listed = await run('docker', ['run', '--rm', image, 'ls', '/project/dist', '/project/src/types']);
    t.match(listed.output, /index\.js/, 'the mappings are built in /project/dist');
    t.match(listed.output, /models/, 'codegen wrote the entity classes');
  });

  t.comment(`timings: ${times.join(', ')}`);
});
