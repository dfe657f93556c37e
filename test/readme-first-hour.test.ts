import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t, { type Test } from 'tap';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { openDb } from './support/node-backends.ts';
import { BIN, PROGRAM_ENV, REPO } from './support/idx-programs.ts';

/**
 * A new user's first hour, as the READMEs write it: the repository README's "Using idx on a project"
 * lines (an EVM starter) and, for a Substrate starter, `idx init demo --network substrate`, `cd demo` and
 * that starter's README lines, each run by a shell in a new folder with idx's programs on the PATH (as
 * `npm install -g` puts them there), until the node has indexed rows from the dev chain. The one line
 * not run as written is `npm install`: it would fetch chopsticks (~300 packages) from the registry;
 * the project gets idx's node_modules instead, which hold the same dev dependencies.
 *
 * `npm run test:install` runs this file on the package as users get it: packed, installed with
 * `npm install -g` into a folder whose bin/ it names in IDX_INSTALLED_BIN; then `npm install` runs too.
 */
const INSTALLED_BIN = process.env.IDX_INSTALLED_BIN;

// two chains, two builds and two nodes on a busy 2-core machine
t.setTimeout(900_000);

/** The lines of the first ```sh block after the heading `heading` of a markdown file. */
async function shellBlock(file: string, heading: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  const from = text.indexOf(`\n${heading}\n`);
  if (from < 0) throw new Error(`${file} has no heading "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(from))?.[1];
  if (block === undefined) throw new Error(`${file} has no sh block under "${heading}"`);
  return block.split('\n').filter((line) => line.trim() !== '');
}

/** The command of a README line, without its comment and padding. */
const command = (line: string) => line.replace(/\s+#.*$/, '').trim();

/** A folder with `idx`, `idx-node` and `idx-query` in it, running this checkout's programs as the installed package does. */
async function programsOnPath(dir: string): Promise<string> {
  if (INSTALLED_BIN !== undefined) return INSTALLED_BIN;
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  for (const name of ['idx', 'idx-node', 'idx-query']) {
    await writeFile(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" --no-node-snapshot "${BIN(name)}" "$@"\n`);
    await chmod(join(bin, name), 0o755);
  }
  return bin;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** A user's environment: idx's programs on the PATH, but not the checkout's node_modules/.bin that npx and tap put there. */
function userEnv(bin: string): NodeJS.ProcessEnv {
  const path = (process.env.PATH ?? '').split(':').filter((dir) => !dir.includes('node_modules'));
  // the README's lines set no DB_*: the node keeps its data in the project's embedded database, whatever the suite
  // runs with (a schema `demo` left in the suite's PostgreSQL by an earlier run would hold another dev chain's rows)
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DB_')));
  return { ...env, ...PROGRAM_ENV, PATH: [bin, ...path].join(':'), NODE_OPTIONS: '' };
}

/** `npm install` in a project: for real on the installed package, else idx's node_modules linked (see above). */
async function npmInstall(t: Test, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (INSTALLED_BIN === undefined) {
    await symlink(join(REPO, 'node_modules'), join(cwd, 'node_modules'));
    t.comment("npm install: idx's node_modules linked instead (the same dev dependencies, no registry)");
    return;
  }
  const began = Date.now();
  const run = await sh('npm install', cwd, env);
  t.equal(run.code, 0, `npm install (${Math.round((Date.now() - began) / 1000)} s)`, { output: run.output });
  const warnings = run.output.split('\n').filter((line) => /^npm warn/.test(line));
  t.comment(`npm install printed ${warnings.length} warning lines${warnings.length ? `:\n${warnings.join('\n')}` : ''}`);
}

function sh(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile('sh', ['-c', line], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
      done({ code, output: `${stdout}${stderr}` });
    });
  });
}

interface Walk {
  /** the last line (idx-node), its output, and the rows it indexed once stopped */
  nodeOutput: string;
  transfers: number;
  /** seconds from the first line to the node's first progress line showing the chain's first blocks indexed */
  seconds: number;
}

/**
 * Runs `lines` as a user types them into a shell in `start`: `cd` moves, `npm install` links idx's
 * node_modules (see above), every other line but the last must exit 0; the last, `idx-node -f .`, runs
 * until its progress line reaches `height` (and, with `caughtUp`, until it has logged that it caught up),
 * then gets SIGTERM, and the project's transfers are counted.
 */
async function walk(t: Test, start: string, lines: readonly string[], height: number, caughtUp = false): Promise<Walk> {
  const env = userEnv(await programsOnPath(start));
  // whatever happens, no chain is left behind
  t.teardown(() => sh('idx dev-chain --stop', start, env));
  const began = Date.now();
  let cwd = start;
  const last = command(lines.at(-1)!);
  t.equal(last, 'idx-node -f .', 'the last line indexes the project');
  for (const line of lines.slice(0, -1).map(command)) {
    if (line.startsWith('cd ')) {
      cwd = resolve(cwd, line.slice(3));
    } else if (line === 'npm install') {
      await npmInstall(t, cwd, env);
    } else {
      const run = await sh(line, cwd, env);
      t.equal(run.code, 0, `${line} (${Math.round((Date.now() - began) / 1000)} s)`, { output: run.output });
      if (run.code !== 0) throw new Error(`${line} failed`);
    }
  }
  const node = spawn('sh', ['-c', `exec ${last}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let seconds = -1;
  const reached = new Promise<void>((done) => {
    const see = (chunk: Buffer) => {
      output += chunk.toString();
      const heights = [...output.matchAll(/indexed to (\d+)\//g)].map((m) => Number(m[1]));
      if (seconds < 0 && heights.some((h) => h >= height)) seconds = (Date.now() - began) / 1000;
      // with the node's own word that it reached the head: on a slow machine the progress line can come first
      if (seconds >= 0 && (!caughtUp || /caught up/.test(output))) done();
    };
    node.stdout.on('data', see);
    node.stderr.on('data', see);
  });
  const exited = new Promise<number | null>((done) => node.once('exit', done));
  const deadline = new Promise<'late'>((done) => setTimeout(() => done('late'), 180_000).unref());
  const outcome = await Promise.race([reached, exited, deadline]);
  node.kill('SIGTERM');
  await exited;
  t.equal(
    seconds >= 0,
    true,
    `${last} indexed the chain's first ${height} blocks (${outcome === 'late' ? 'not within 3 minutes' : `after ${Math.round(seconds)} s`})`,
    {
      output: output.slice(-4000),
    },
  );
  const db = await openDb('pglite', cwd);
  try {
    const schema = cwd.split('/').at(-1)!;
    const [row] = await execute<{ n: number }>(db.kysely, `select count(*)::int as n from ${quoteIdent(schema)}.transfers`);
    return { nodeOutput: output, transfers: row!.n, seconds };
  } finally {
    await db.close();
  }
}

async function freshFolder(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'idx-first-hour-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

// the lines start the dev chains on the starters' ports
const taken = async (port: number) => ((await portFree(port)) ? false : `port ${port} is taken: the README's lines start the dev chain there`);

t.test("the README's lines, EVM: idx init, idx dev-chain, idx codegen, idx build, idx-node", { skip: await taken(8545) }, async (t) => {
  const lines = await shellBlock(join(REPO, 'README.md'), '## Using idx on a project');
  const starter = await shellBlock(join(REPO, 'examples', 'erc20', 'README.md'), '## Use');
  t.same(lines.slice(2).map(command), starter.map(command), "after idx init and cd, the README's lines are the starter README's");
  const dir = await freshFolder(t);
  // blocks 3-12 hold the dev chain's first 200 transfers
  const result = await walk(t, dir, lines, 12, true);
  t.ok(result.transfers >= 200, `the node indexed the transfers (${result.transfers})`);
  t.notMatch(result.nodeOutput, /waiting for \d+ blocks? to be final/, 'the dev chain finalises its blocks at once: the node never waits for finality');
  t.match(result.nodeOutput, /caught up/);
  t.comment(`from idx init to the first blocks indexed: ${Math.round(result.seconds)} s`);

  t.test('npm install && npm run typecheck: the starter typechecks with its own TypeScript', async (t) => {
    const demo = join(dir, 'demo');
    const pkg = JSON.parse(await readFile(join(demo, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string>; scripts: Record<string, string> };
    t.ok(pkg.devDependencies?.typescript, 'typescript is a dev dependency: tsc is installed with the project');
    const env = userEnv(await programsOnPath(dir));
    await npmInstall(t, demo, env);
    const run = await sh('npm run typecheck', demo, env);
    t.equal(run.code, 0, run.output);
  });
});

t.test(
  "the README's lines, Substrate: idx init --network substrate, npm install, idx dev-chain, idx codegen, idx build, idx-node",
  { skip: await taken(8000) },
  async (t) => {
    const readme = await readFile(join(REPO, 'README.md'), 'utf8');
    t.match(readme, /`idx init demo --network substrate`/, 'the README names the Substrate starter');
    const lines = ['idx init demo --network substrate', 'cd demo', ...(await shellBlock(join(REPO, 'examples', 'substrate', 'README.md'), '## Use'))];
    const dir = await freshFolder(t);
    // blocks 2-4 hold //Alice's transfers and batch calls
    const result = await walk(t, dir, lines, 4);
    t.ok(result.transfers >= 3, `the node indexed the transfers (${result.transfers})`);
    t.notMatch(result.nodeOutput, /waiting for \d+ blocks? to be final/, 'every block of the dev chain is final at once');
    t.comment(`from idx init to the first blocks indexed: ${Math.round(result.seconds)} s`);
  },
);
