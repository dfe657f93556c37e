import { spawn } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { StoreOperation } from '../domain/entities/entity-store.ts';
import { parseSchema } from '../domain/entities/parse-schema.ts';
import { createEntityStore } from '../infra/postgres/create-entity-store.ts';
import { publishPgliteSocket } from '../infra/postgres/pglite-socket-endpoint.ts';
import { prepareProjectSchema } from '../infra/postgres/prepare-project-schema.ts';
import { envFor } from './support/node-backends.ts';
import { BIN, programEnv } from './support/idx-programs.ts';
import { freePortGuess } from './support/node-ports.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { HUGE_SEARCHES } from './support/hostile-searches.ts';
import { createTestBackends } from './support/test-backends.ts';

exitWhenDone();

// Every string a query hands idx-query to read on its own thread (search strings, cursors, node
// ids, blockHeight, number, date and hex literals, patterns, JSON values), at its most hostile
// within the 1 MB a request may carry: each is answered with a clean error (or data) at once,
// and a trivial query sent every 100 ms meanwhile keeps answering. idx-query runs as users run it,
// its own process, asked over HTTP.
const backends = createTestBackends(t);
const model = parseSchema(`
  type Account @entity { id: ID!, name: String }
  type Post @entity @fullText(fields: ["title"], language: "english") {
    id: ID!, title: String, n: BigInt, j: JSON, b: Bytes, d: Date, author: Account
  }
`);

const b64 = (v: string) => Buffer.from(v).toString('base64');
const nodeIdOf = (table: string, id: string) => b64(JSON.stringify([table, id]));

interface Answer {
  status: number;
  body: { data?: any; errors?: { message: string; extensions?: { code?: string; limit?: number } }[] };
}
interface Attack {
  what: string;
  query: string;
  variables: Record<string, unknown>;
  /** what the answer must be */
  check(t: Test, a: Answer): void;
}

/** refused as the user's mistake, saying `message` */
const refused =
  (message: RegExp, limit?: number) =>
  (t: Test, a: Answer): void => {
    t.match(a.body.errors?.[0], { message, extensions: { code: 'BAD_USER_INPUT', ...(limit === undefined ? {} : { limit }) } });
  };
/** the scalar refused the variable before the query ran */
const refusedVariable = (message: RegExp) => (t: Test, a: Answer) => {
  t.match(a.body.errors?.[0]?.message, message);
  t.notOk(JSON.stringify(a.body).length > 2000, 'a short error');
};
const answered = (data: unknown) => (t: Test, a: Answer) => t.same(a.body, { data });

const SEARCH = 'query($s: String!) { searchPosts(search: $s) { totalCount } }';
const attacks: Attack[] = [
  // issue 27, items 2 and 5: SubQuery's search reader took 26 s, 83 s, or overflowed the stack
  ...HUGE_SEARCHES.map(([what, s]) => ({
    what: `search ${what}`,
    query: SEARCH,
    variables: { s },
    check: refused(/^search: \d+ characters is more than the 1000/, 1000),
  })),
  { what: 'search of 65 words', query: SEARCH, variables: { s: 'w '.repeat(65) }, check: refused(/^search: more than 64 words/, 64) },
  {
    what: 'search nested 17 deep',
    query: SEARCH,
    variables: { s: `${'('.repeat(17)}fox` },
    check: refused(/^search: parentheses nested more than 16 deep/, 16),
  },
  {
    what: "search: pg-tsquery's cubic case at 1,000 characters",
    query: SEARCH,
    variables: { s: `fox)${'&'.repeat(996)}` },
    check: answered({ searchPosts: { totalCount: 1 } }),
  },
  // cursors and node ids: JSON.parse took seconds over a megabyte of '['
  {
    what: 'a cursor of 700,000 "["',
    query: 'query($c: Cursor) { posts(after: $c) { totalCount } }',
    variables: { c: b64('['.repeat(700_000)) },
    check: refused(/^after: not a cursor of this service/),
  },
  {
    what: 'a node id of 700,000 "["',
    query: 'query($n: ID!) { node(nodeId: $n) { nodeId } postByNodeId(nodeId: $n) { id } }',
    variables: { n: b64('['.repeat(700_000)) },
    check: answered({ node: null, postByNodeId: null }),
  },
  {
    what: 'a node id whose id holds NUL',
    query: 'query($n: ID!) { node(nodeId: $n) { nodeId } postByNodeId(nodeId: $n) { id } }',
    variables: { n: nodeIdOf('posts', 'p\u00001') },
    check: answered({ node: null, postByNodeId: null }),
  },
  // BigInt() took 1.7 s over a million digits
  {
    what: 'blockHeight of 900,000 digits',
    query: 'query($h: String) { posts(blockHeight: $h) { totalCount } }',
    variables: { h: '9'.repeat(900_000) },
    check: refused(/^blockHeight 9{30}… is beyond the largest block height/),
  },
  {
    what: 'blockHeight of 900,000 zeros and a 5',
    query: 'query($h: String) { posts(blockHeight: $h) { totalCount } }',
    variables: { h: `${'0'.repeat(900_000)}5` },
    check: answered({ posts: { totalCount: 1 } }),
  },
  // regular expressions that backtracked over long runs
  {
    what: 'a BigFloat of 999 digits and a letter',
    query: 'query($v: BigFloat) { posts(filter: { n: { equalTo: $v } }) { totalCount } }',
    variables: { v: `${'1'.repeat(999)}x` },
    check: refusedVariable(/BigFloat must be a decimal number in a string/),
  },
  {
    what: 'a BigFloat of 900,000 digits',
    query: 'query($v: BigFloat) { posts(filter: { n: { equalTo: $v } }) { totalCount } }',
    variables: { v: '1'.repeat(900_000) },
    check: refusedVariable(/BigFloat must be a decimal number of at most 1000 characters/),
  },
  {
    what: 'Bytes of 900,001 hex digits',
    query: 'query($v: String) { posts(filter: { b: { equalTo: $v } }) { totalCount } }',
    variables: { v: `0x${'a'.repeat(900_001)}` },
    check: refused(/a Bytes value to compare with must be 0x-hex of whole bytes/),
  },
  {
    what: 'a Datetime of 900,000 characters',
    query: 'query($v: Datetime) { posts(filter: { d: { equalTo: $v } }) { totalCount } }',
    variables: { v: `2024-01-01T00:00:00.${'0'.repeat(900_000)}Z` },
    check: refusedVariable(/Datetime must be an ISO 8601 date and time of at most 100 characters/),
  },
  // patterns: the database matches them against each row in time growing with their length
  ...(
    [
      ['like', `${'%a'.repeat(400_000)}b`],
      ['includes', '%_\\'.repeat(200_000)],
      ['startsWithInsensitive', 'x'.repeat(1001)],
    ] as const
  ).map(([op, v]) => ({
    what: `${op} of ${v.length} characters`,
    query: `query($v: String) { posts(filter: { title: { ${op}: $v } }) { totalCount } }`,
    variables: { v },
    check: refused(new RegExp(`^${op}: a pattern of ${v.length} characters is more than the 1000 a pattern may have`), 1000),
  })),
  {
    what: 'a like pattern of 1,000 characters, "%a" × 499 and "b"',
    query: 'query($v: String) { posts(filter: { title: { like: $v } }) { totalCount } }',
    variables: { v: `${'%a'.repeat(499)}%b` },
    check: answered({ posts: { totalCount: 0 } }),
  },
  // JSON values go to the database as parameters, their nesting bounded with the variables'
  {
    what: 'a JSON value 60 levels deep',
    query: 'query($v: JSON) { posts(filter: { j: { contains: $v } }) { totalCount } }',
    variables: { v: JSON.parse(`${'['.repeat(60)}${']'.repeat(60)}`) as unknown },
    check: answered({ posts: { totalCount: 0 } }),
  },
];

t.test('hostile strings are answered at once, and a trivial query keeps answering meanwhile', (t) =>
  backends.each(t, async (t, b) => {
    const options = { schema: b.schema, historical: true, timestampField: true };
    await prepareProjectSchema(b.db.kysely, model, options);
    const store = createEntityStore({ db: b.db.kysely, model, ...options });
    const set = (entity: string, id: string, data: Record<string, unknown>): StoreOperation => ({ entity, id, height: 1, op: 'set', data: { id, ...data } });
    await store.flush({
      operations: [set('Account', 'a1', { name: 'ann' }), set('Post', 'p1', { title: 'the quick brown fox', n: 5n, authorId: 'a1' })],
      metadata: { schema: model, lastProcessedHeight: 5, chain: '31337' },
    });

    // PostgreSQL directly; PGlite through the socket idx-node serves in the project's data folder
    let env = envFor('postgres');
    const project = await mkdtemp(join(tmpdir(), 'idx-hostile-'));
    t.teardown(() => rm(project, { recursive: true, force: true }));
    if (b.kind === 'pglite') {
      env = {};
      await symlink(b.db.pglite!.dataDir!, join(project, '.idx-data'));
      const socket = await publishPgliteSocket(b.db, b.db.pglite!.dataDir!);
      t.teardown(() => socket.close());
    }
    const child = spawn(
      process.execPath,
      ['--no-node-snapshot', BIN('idx-query'), '-n', b.schema, '-f', project, '--port', String(freePortGuess()), '--query-timeout', '5000'],
      { env: programEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    t.teardown(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    let url: string | undefined;
    for (let i = 0; url === undefined; i++) {
      if (i > 1200 || child.exitCode !== null) throw new Error(`idx-query did not start:\n${output}`);
      url = /serving GraphQL .* at (http:\/\/localhost:\d+)\//.exec(output)?.[1];
      await new Promise((r) => setTimeout(r, 50));
    }
    const bodies = attacks.map((a) => JSON.stringify({ query: a.query, variables: a.variables }));
    const post = async (body: string): Promise<Answer> => {
      try {
        const res = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await res.text();
        try {
          return { status: res.status, body: JSON.parse(text) as Answer['body'] };
        } catch {
          return { status: res.status, body: { errors: [{ message: text }] } };
        }
      } catch (err) {
        return { status: 0, body: { errors: [{ message: `no answer: ${String((err as Error).cause ?? err)}` }] } };
      }
    };

    // the trivial query, every 100 ms while the attacks run
    const trivial = JSON.stringify({ query: '{ posts(first: 1) { totalCount } }' });
    const latencies: number[] = [];
    let ticking = true;
    const ticker = (async () => {
      while (ticking) {
        const started = performance.now();
        const a = await post(trivial);
        latencies.push(performance.now() - started);
        if (a.body.data?.posts?.totalCount !== 1) t.fail(`the trivial query: ${JSON.stringify(a.body)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    let slowest = { what: '', ms: 0 };
    for (const [i, attack] of attacks.entries()) {
      const started = performance.now();
      const a = await post(bodies[i]!);
      const ms = performance.now() - started;
      if (ms > slowest.ms) slowest = { what: attack.what, ms };
      await t.test(attack.what, async (t) => {
        attack.check(t, a);
        t.notMatch(JSON.stringify(a.body), /INTERNAL_SERVER_ERROR|DATABASE_ERROR|QUERY_TIMEOUT|Maximum call stack/, 'no crash, no database failure');
      });
    }
    ticking = false;
    await ticker;

    // Bounds for a shared CI machine (two cores under other jobs' load stretch every figure several
    // times): before, the search strings alone held the process 26 s and 83 s, and a trivial query with them.
    t.ok(slowest.ms < 5000, `every attack answered within 5 s (slowest: ${slowest.what}, ${slowest.ms.toFixed(0)} ms)`);
    const worst = Math.max(...latencies);
    t.ok(worst < 2500, `${latencies.length} trivial queries meanwhile, the slowest in ${worst.toFixed(0)} ms`);
    t.equal(child.exitCode, null, 'idx-query stayed up');
    t.notMatch(output, /ERROR|RangeError|Maximum call stack/, 'nothing logged as a failure');
  }),
);
