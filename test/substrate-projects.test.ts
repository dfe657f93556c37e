import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { runVariedWorkload, startVariedChain } from '../devchain/varied-substrate-workload.ts';
import { compareDumps, dumpEntityTables, type SchemaDump } from './support/entity-table-dump.ts';
import { PROGRAM_BACKEND } from './support/node-backends.ts';
import { REPO } from './support/idx-programs.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { indexInProcess, openIndexedDb } from './support/index-in-process.ts';
import { knownAt, SUBSTRATE_FIXTURES, type SubstrateFixture } from './support/substrate-fixtures.ts';
import { prepareFixture, readReference, type PreparedFixture } from './support/substrate-projects.ts';
import { uniqueSchemaName } from './support/test-backends.ts';

/**
 * Public SubQuery Substrate projects (test/fixtures/substrate-projects), each built unchanged with
 * `idx codegen && idx build`, indexed by idx-node over one varied workload on the local chain, and
 * every version of every entity table compared with what SubQuery's own node made of the same
 * project on the same blocks (its `reference.json`, recorded by scripts/record-substrate-references.ts).
 */
exitWhenDone();

// a chain, 21 builds and 21 nodes: 279 and 323 s on a slower 2-core machine (2026-11-30), past tap's 300 s
t.setTimeout(900_000);

// IDX_SUBSTRATE_FIXTURES=a,b runs only those (while working on them)
const only = process.env.IDX_SUBSTRATE_FIXTURES?.split(',');
const fixtures = SUBSTRATE_FIXTURES.filter((f) => only === undefined || only.includes(f.name));

const chain = await startVariedChain();
t.teardown(() => chain.close());
// a build needs only the chain's address (for the manifest): the builds run, one at a time, while
// the chain makes the workload's blocks (in chopsticks' worker thread)
const builds = new Map<string, Promise<PreparedFixture>>();
let previous: Promise<unknown> = Promise.resolve();
for (const fixture of fixtures.filter((f) => !cannotRun(f))) {
  const build = previous.then(() => prepareFixture(t, fixture, chain.wsUrl));
  build.catch(() => {}); // its test reads the failure
  builds.set(fixture.name, build);
  previous = build.catch(() => {});
}
const workload = await runVariedWorkload(chain);
const lastHash = workload.hashes.at(-1)!;

/**
 * The first package the fixture needs that is not installed, if any: in idx's own node_modules, or
 * in the fixture's folder of IDX_FIXTURE_DEPS when set (see scripts/record-substrate-references.ts).
 */
function missingPackage(f: SubstrateFixture): string | undefined {
  const aside = process.env.IDX_FIXTURE_DEPS === undefined ? undefined : join(process.env.IDX_FIXTURE_DEPS, f.name, 'node_modules');
  const modules = aside !== undefined && existsSync(aside) ? aside : join(REPO, 'node_modules');
  return f.needs?.map((spec) => spec.slice(0, spec.lastIndexOf('@'))).find((name) => !existsSync(join(modules, name, 'package.json')));
}

/** A fixture that cannot run here, unless what it lacks was installed aside (IDX_FIXTURE_DEPS). */
function cannotRun(f: SubstrateFixture): boolean {
  return f.cannot !== undefined && (!f.needs?.length || missingPackage(f) !== undefined);
}

for (const fixture of fixtures) {
  if (cannotRun(fixture)) {
    t.test(`${fixture.name}: built unchanged by idx, indexed over the workload, its tables equal @subql/node's`, { skip: fixture.cannot }, () => {});
    continue;
  }
  const missing = missingPackage(fixture);
  if (missing !== undefined) {
    t.test(`${fixture.name}: idx build names the package it lacks (${fixture.cannot ?? `${missing} is not installed here`})`, async (t) => {
      const error = await builds.get(fixture.name)!.then(
        () => undefined,
        (err: Error) => err.message,
      );
      // a known defect may stop the build before it reaches the missing package
      t.match(error, missing, `the build fails naming ${missing}`, known(knownAt(fixture, 'build'), !error?.includes(missing), { error }));
    });
    continue;
  }
  t.test(`${fixture.name}: built unchanged by idx, indexed over the workload, its tables equal @subql/node's`, async (t) => {
    const reference = await readReference(fixture);
    if (reference === undefined)
      return t.fail(`no reference.json: record it with scripts/record-substrate-references.ts ${fixture.name}`, known(knownAt(fixture, 'build'), true));
    t.equal(reference.workload.lastHash, lastHash, 'the reference was recorded on these very blocks (the workload is deterministic)');
    let prepared;
    try {
      prepared = await builds.get(fixture.name)!;
    } catch (err) {
      return t.fail(`idx build fails: ${(err as Error).message}`, known(knownAt(fixture, 'build'), true));
    }
    const schema = uniqueSchemaName(`subql_${fixture.name.replace(/-/g, '_')}`);
    const error = await indexFixture(prepared.manifest, schema, workload.lastBlock).then(
      () => undefined,
      (err: Error) => err.message,
    );
    // opened once the node is done: PGlite is one process's database
    const db = await openIndexedDb(t, PROGRAM_BACKEND, prepared.dir, [schema]);
    const ours = await dumpEntityTables(db.kysely, schema);
    const stopped = reference.outcome.error;
    const ends = (e: string | undefined) => (e === undefined ? 'indexes the workload' : 'stops');
    const endsOtherwise = ends(error) !== ends(stopped);
    const runTodo = knownAt(fixture, 'run');
    t.equal(
      ends(error),
      ends(stopped),
      `the run ends as @subql/node’s did${stopped ? ` (${stopped})` : ''}`,
      known(runTodo, endsOtherwise, { idx: error?.split('\n').slice(0, 4).join('\n') }),
    );
    // a handler's own error: the same words (the mapping code is the same)
    const thrown = /^Failed to index block at height \d+ \w+\(\w*Error[^:]*: (.*)$/.exec(stopped ?? '')?.[1]?.split(': ')[0];
    if (thrown !== undefined) t.match(error, thrown, 'with the handler’s own error', known(runTodo, !error?.includes(thrown)));
    // SubQuery commits nothing of a run whose handler fails, idx the blocks before it (issue 26, item 7): then only the tables' shapes compare
    // all of them, to tell each known or not; the diagnostics show the first ones
    const differences =
      stopped === undefined
        ? compareDumps(reference.tables, ours, undefined, Infinity)
        : compareDumps(shapes(reference.tables), shapes(ours), undefined, Infinity);
    if (endsOtherwise && runTodo !== undefined) {
      // the tables differ as the run does
      t.ok(
        differences.length === 0,
        'every version of every table as @subql/node wrote it',
        known(runTodo, differences.length > 0, { differences: firstOf(differences) }),
      );
      return;
    }
    const patterns = (fixture.differs ?? []).filter((d) => d.lines !== undefined);
    const explained = differences.filter((line) => patterns.some((d) => d.lines!.test(line)));
    const unexplained = differences.filter((line) => !explained.includes(line));
    t.ok(
      unexplained.length === 0,
      'every version of every table as @subql/node wrote it (the known differences aside)',
      known(undefined, unexplained.length > 0, { differences: firstOf(unexplained) }),
    );
    const says = patterns.filter((d) => explained.some((line) => d.lines!.test(line))).map((d) => d.says);
    t.ok(
      explained.length === 0,
      'none of the known differences',
      known(says.join('; ') || undefined, explained.length > 0, { differences: firstOf(explained) }),
    );
  });
}

/**
 * An assertion's options under a known difference: a todo (reported, not failing the run) that
 * prints its diagnostics when it fails.
 */
function known(todo: string | undefined, failing: boolean, extra: Record<string, unknown> = {}) {
  return { ...(todo !== undefined && { todo }), ...(failing && { diagnostic: true, ...extra }) };
}

/** The first lines of a long list, and how many more there are. */
const firstOf = (lines: string[], n = 30) => (lines.length > n ? [...lines.slice(0, n), `… and ${lines.length - n} more`] : lines);

/** The tables without their rows. */
const shapes = (dump: SchemaDump): SchemaDump => Object.fromEntries(Object.entries(dump).map(([name, table]) => [name, { ...table, rows: [] }]));

/** idx-node on the manifest, in this process, until the workload's last block or an error. */
async function indexFixture(manifest: string, schema: string, stopAtHeight: number): Promise<void> {
  await indexInProcess(PROGRAM_BACKEND, manifest, undefined, ['--db-schema', schema], stopAtHeight);
}
