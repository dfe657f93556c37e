// The deployment files a user runs unchanged: docker/compose*.yml and deploy/kubernetes. Checked
// without Docker or a cluster: every Kubernetes object against the API's schema (kubernetes-models),
// and every command line against idx's own option parsers, so a renamed flag or a port that does not
// line up fails here. `npm run test:docker` runs the compose stack for real.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { parse, parseAllDocuments } from 'yaml';
import { parseNodeArgs } from '../apps/node/start-up/node-options.ts';
import { parseQueryArgs } from '../apps/query/query-options.ts';
import { REPO } from './support/idx-programs.ts';

type Obj = Record<string, any>;

const nodeArgs = (args: readonly string[]) => {
  const cmd = parseNodeArgs(args, { program: 'idx-node', version: 'test', variant: 'base', cores: 2, write: () => {} });
  if (cmd.command !== 'run') throw new Error(`expected idx-node to run, got ${cmd.command}`);
  return cmd.options;
};
const queryArgs = (args: readonly string[]) => {
  const cmd = parseQueryArgs(args, { version: 'test', cwd: '/', write: () => {} });
  if (cmd.command !== 'run') throw new Error('expected idx-query to run');
  return cmd.options;
};

/** What a user must set (`${X:?…}` in the file), as they might. */
const REQUIRED: Record<string, string> = { IDX_ENDPOINT: 'https://rpc.example.org', IDX_PROJECT: '/home/me/project' };

/** A compose value with no variables set: `${X:-default}` → default. */
const interpolate = (value: string) => value.replace(/\$\{(\w+):-([^}]*)\}/g, '$2').replace(/\$\{(\w+):\?[^}]*\}/g, (_, v: string) => REQUIRED[v]!);

/** The program's arguments: a shell command's `exec idx-node -f /project "$$X" $$MORE` with the service's environment. */
function commandOf(service: Obj): string[] {
  const c = service.command as string[];
  if (c[0] !== 'sh' || c[1] !== '-c') return c;
  const env = service.environment as Record<string, string>;
  return (c[2]!.replace(/^exec\s+/, '').match(/"[^"]*"|\S+/g) ?? [])
    .map((w) => w.replace(/^"|"$/g, '').replace(/\$\$(\w+)/g, (_, v: string) => interpolate(env[v]!)))
    .filter((w) => w !== '');
}

async function composeFile(name: string): Promise<{ services: Record<string, Obj>; volumes: Obj }> {
  return parse(await readFile(join(REPO, 'docker', name), 'utf8'), { merge: true });
}

for (const file of ['compose.yml', 'compose.project.yml']) {
  t.test(`docker/${file}: the services line up`, async (t) => {
    const { services, volumes } = await composeFile(file);
    const { node, query, postgres } = services;
    t.ok(node && query && postgres && services.project, 'postgres, project, node and query services');

    const n = nodeArgs(commandOf(node!).slice(1));
    const q = queryArgs(commandOf(query!).slice(1));
    t.equal(commandOf(node!)[0], 'idx-node');
    t.equal(commandOf(query!)[0], 'idx-query');
    t.equal(n.idx, '/project', 'the node indexes the project volume');
    t.ok(n.subscription, 'the node creates the triggers idx-query --subscription needs');
    t.ok(q.playground && q.subscription, 'idx-query serves the playground and subscriptions');
    t.equal(q.name, n.dbSchema, "idx-query reads the node's schema");
    t.equal(n.networkEndpoint.length, 1, 'the chain is one endpoint');
    t.equal(String(n.port), node!.environment.IDX_HEALTH_PORT, "the node's health check asks its port");
    t.equal(String(q.port), query!.environment.IDX_HEALTH_PORT, "the query's health check asks its port");
    t.match(interpolate(node!.ports[0]), new RegExp(`^\\d+:${n.port}$`), "the node's port is published");
    t.match(interpolate(query!.ports[0]), new RegExp(`^\\d+:${q.port}$`), "the query's port is published");
    t.equal(q.indexer, `http://node:${n.port}`, 'idx-query --indexer is the node service');
    t.equal(interpolate(node!.environment.DB_HOST), 'postgres', 'the database is the postgres service unless DB_HOST says otherwise');
    const db = (env: Record<string, string>) => Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('DB_')));
    t.same(db(node!.environment), db(query!.environment), 'node and query read the same DB_* settings');
    t.equal(Object.keys(db(node!.environment)).length, 5);

    for (const [name, service] of Object.entries(services)) {
      if (name !== 'project') t.ok(service.healthcheck?.test, `${name} has a health check`);
      t.ok(service.restart, `${name} has a restart policy`);
      for (const [dep, cond] of Object.entries((service.depends_on ?? {}) as Obj)) {
        t.ok(services[dep], `${name} depends on ${dep}, a service of the file`);
        t.match(cond.condition, /^service_(healthy|completed_successfully)$/);
        if (cond.condition === 'service_healthy') t.ok(services[dep]!.healthcheck, `${dep} has the health check ${name} waits for`);
      }
      for (const v of (service.volumes ?? []) as string[]) {
        const source = v.split(':')[0]!;
        if (!source.startsWith('$') && !source.startsWith('.') && !source.startsWith('/')) t.ok(source in volumes, `volume ${source} is declared`);
      }
    }
    t.same(query!.depends_on, { node: { condition: 'service_healthy' } }, 'idx-query starts once the node is healthy');
    t.match(postgres!.volumes, [/:\/var\/lib\/postgresql\/data$/], 'PostgreSQL keeps its data in a volume');
  });
}

t.test('docker/compose.yml: the demo chain is the one the starter project indexes', async (t) => {
  const { services } = await composeFile('compose.yml');
  t.equal(nodeArgs(commandOf(services.node!).slice(1)).networkEndpoint[0], 'http://chain:8545');
  t.same(services.node!.depends_on.chain, { condition: 'service_healthy' });
  const manifest = await readFile(join(REPO, 'examples', 'erc20', 'project.ts'), 'utf8');
  t.match(
    manifest,
    /0x5FbDB2315678afecb367f032d93F642f64180aa3/,
    "the starter indexes the address of anvil's first deployment, where the demo chain puts its token",
  );
  t.match(services.project!.command[2], /cp -R \/app\/examples\/erc20\/\. \/project\/ && cd \/project && idx codegen && idx build/);
});

const manifests = async () => {
  const dir = join(REPO, 'deploy', 'kubernetes');
  const objects: Obj[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort()) {
    for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
      objects.push({ ...(doc.toJS() as Obj), __file: file });
    }
  }
  return objects;
};

t.test('deploy/kubernetes: every object is valid for the Kubernetes API', async (t) => {
  const objects = await manifests();
  t.ok(objects.length >= 5);
  for (const { __file, ...object } of objects) {
    // kubernetes-models/<apiVersion>/<Kind>: v1/Service, apps/v1/Deployment
    const mod = (await import(`kubernetes-models/${object.apiVersion}/${object.kind}`)) as Record<string, new (o: Obj) => { validate(): void }>;
    const Model = mod[object.kind]!;
    t.doesNotThrow(() => new Model(object).validate(), `${__file}: ${object.kind} ${object.metadata.name}`);
  }
  const kustomization = parse(await readFile(join(REPO, 'deploy', 'kubernetes', 'kustomization.yaml'), 'utf8')) as Obj;
  t.same([...kustomization.resources].sort(), [...new Set(objects.map((o) => o.__file))].sort(), 'kustomization.yaml lists every file');
});

t.test('deploy/kubernetes: one node, scaled queries, probes and services that line up', async (t) => {
  const objects = await manifests();
  const deployment = (name: string) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!;
  const service = (name: string) => objects.find((o) => o.kind === 'Service' && o.metadata.name === name)!;
  const node = deployment('idx-node');
  const query = deployment('idx-query');
  t.equal(node.spec.replicas, 1, 'one node: the only writer');
  t.equal(node.spec.strategy.type, 'Recreate', 'the old node pod stops before the new one starts');
  t.ok(query.spec.replicas >= 2, 'idx-query runs several replicas');

  const nodeContainer = node.spec.template.spec.containers[0];
  const queryContainer = query.spec.template.spec.containers[0];
  const n = nodeArgs(
    nodeContainer.args.slice(1).map((a: string) => a.replace(/\$\((\w+)\)/, (_: string, v: string) => nodeContainer.env.find((e: Obj) => e.name === v).value)),
  );
  const q = queryArgs(queryContainer.args.slice(1));
  t.equal(nodeContainer.args[0], 'idx-node');
  t.equal(queryContainer.args[0], 'idx-query');
  t.equal(q.name, n.dbSchema, "idx-query reads the node's schema");
  t.equal(n.idx, '/project', 'the project image has the project in /project');
  t.equal(q.indexer, undefined, "no --indexer: the replicas' health does not follow the node's");

  for (const [d, args, paths] of [
    [node, n, { startupProbe: '/health', livenessProbe: '/health', readinessProbe: '/ready' }],
    [query, q, { readinessProbe: '/ready' }],
  ] as const) {
    const c = d.spec.template.spec.containers[0];
    const port = c.ports.find((p: Obj) => p.name === 'http');
    t.equal(port.containerPort, args.port, `${d.metadata.name} listens where its container port is`);
    for (const [probe, path] of Object.entries(paths)) t.same(c[probe].httpGet, { path, port: 'http' }, `${d.metadata.name} ${probe} ${path}`);
    t.same(c.envFrom, [{ secretRef: { name: 'idx-database' } }], `${d.metadata.name} reads DB_* from the secret`);
    t.equal(d.spec.template.spec.securityContext.runAsUser, 1000, 'as the image user node');
    const svc = service(d.metadata.name);
    t.same(svc.spec.selector, d.spec.selector.matchLabels, `service ${d.metadata.name} selects its pods`);
    t.same(d.spec.selector.matchLabels, { 'app.kubernetes.io/name': d.metadata.name });
    t.equal(svc.spec.ports[0].targetPort, 'http');
  }
  const secret = objects.find((o) => o.kind === 'Secret')!;
  t.same(Object.keys(secret.stringData).sort(), ['DB_DATABASE', 'DB_HOST', 'DB_PASS', 'DB_PORT', 'DB_USER']);
});
