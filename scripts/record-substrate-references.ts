import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSubqlNode, SUBQL_NODE_VERSION } from '../bench/subql-node.ts';
import { teardowns } from '../bench/teardowns.ts';
import { runVariedWorkload, startVariedChain } from '../devchain/varied-substrate-workload.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { dumpEntityTables } from '../test/support/entity-table-dump.ts';
import { SUBSTRATE_FIXTURES, type SubstrateFixture } from '../test/support/substrate-fixtures.ts';
import { formatReference, linkRepoPackages, prepareFixture, referencePath } from '../test/support/substrate-projects.ts';

/**
 * Records what SubQuery's own node (@subql/node, see bench/subql-node.ts) makes of each fixture of
 * test/fixtures/substrate-projects over the varied workload: its entity tables, every version, in
 * `<fixture>/reference.json`, which test/substrate-projects.test.ts compares idx's tables with.
 *
 *   DB_HOST=127.0.0.1 DB_USER=postgres node --no-node-snapshot --import tsx scripts/record-substrate-references.ts [name…]
 *
 * Each fixture is built by `idx build` (SubQuery's node runs that dist/ unchanged), with the packages
 * it needs beyond idx's own installed aside from the npm registry into IDX_FIXTURE_DEPS (default
 * <tmp>/idx-fixture-deps/<name>), as its users install them. Re-record when the workload, a fixture
 * or the pinned @subql/node changes.
 */
const names = process.argv.slice(2);
const fixtures = SUBSTRATE_FIXTURES.filter((f) => (names.length === 0 ? f.cannot === undefined : names.includes(f.name)));
if (names.some((n) => !SUBSTRATE_FIXTURES.some((f) => f.name === n))) throw new Error(`unknown fixture among ${names.join(', ')}`);
if (!process.env.DB_HOST) throw new Error('set DB_HOST (and DB_USER, DB_PASS…): @subql/node needs PostgreSQL');
const { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE } = process.env;
const dbEnv = { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE };
const deps = process.env.IDX_FIXTURE_DEPS ?? join(tmpdir(), 'idx-fixture-deps');

const td = teardowns();
try {
  for (const f of fixtures) await installNeeds(f);
  const chain = await startVariedChain();
  td.teardown(() => chain.close());
  const workload = await runVariedWorkload(chain);
  console.log(`workload: ${workload.lastBlock} blocks, last ${workload.hashes.at(-1)}`);
  for (const fixture of fixtures) {
    const started = performance.now();
    let prepared;
    try {
      prepared = await prepareFixture(td, fixture, chain.wsUrl, { deps });
    } catch (err) {
      console.log(`${fixture.name}: not recorded, the build fails: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    const schema = `subql_ref_${fixture.name.replace(/-/g, '_')}`;
    const db = await createDb({ env: dbEnv });
    try {
      await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
      const run = await runSubqlNode(prepared.manifest, dbEnv, schema, workload.lastBlock);
      const tables = await dumpEntityTables(db.kysely, schema);
      const reference = {
        recordedWith: `@subql/node ${SUBQL_NODE_VERSION}`,
        workload: { lastBlock: workload.lastBlock, lastHash: workload.hashes.at(-1)! },
        outcome: { indexedTo: run.indexedTo, ...(run.error === undefined ? {} : { error: run.error }) },
        tables,
      };
      await writeFile(referencePath(fixture), formatReference(reference));
      const versions = Object.values(tables).reduce((n, t) => n + t.rows.length, 0);
      console.log(
        `${fixture.name}: ${run.error === undefined ? `indexed to ${run.indexedTo}` : `stopped at ${run.indexedTo ?? 'no block'}: ${run.error.split('\n')[0]}`}; ` +
          `${Object.keys(tables).length} tables, ${versions} versions (${((performance.now() - started) / 1000).toFixed(1)} s)`,
      );
    } finally {
      await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
      await db.close();
    }
  }
} finally {
  await td.run();
}

/** `npm install` of the fixture's extra packages into `<deps>/<name>`, once, then idx's own packages linked beside them. */
async function installNeeds(fixture: SubstrateFixture): Promise<void> {
  if (!fixture.needs?.length) return;
  const dir = join(deps, fixture.name);
  if (!existsSync(join(dir, 'node_modules', '.installed'))) {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: `${fixture.name}-deps`, private: true }));
    console.log(`${fixture.name}: installing ${fixture.needs.join(' ')} into ${dir}`);
    await new Promise<void>((resolve, reject) => {
      // --legacy-peer-deps: as the starters' users install (their peers are idx's own @polkadot packages, linked below)
      const npm = spawn('npm', ['install', '--no-audit', '--no-fund', '--legacy-peer-deps', '--loglevel', 'error', ...fixture.needs!], {
        cwd: dir,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      npm.on('error', reject);
      npm.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm install for ${fixture.name} exited with ${code}`))));
    });
    await writeFile(join(dir, 'node_modules', '.installed'), fixture.needs.join('\n'));
  }
  await linkRepoPackages(join(dir, 'node_modules'));
}
