import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedBin, runSubqlNode, SUBQL_NODE_ETHEREUM_VERSION, subqlNodeEthereumBin } from '../bench/subql-node.ts';
import { teardowns } from '../bench/teardowns.ts';
import { EVM_PROJECTS_ANVIL, runEvmProjectsWorkload } from '../devchain/evm-projects-workload.ts';
import { startAnvil } from '../devchain/start-anvil.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { dumpEntityTables } from '../test/support/entity-table-dump.ts';
import { contractOf, copyEvmFixture, EVM_FIXTURES, evmReferencePath, localEvmManifest } from '../test/support/evm-projects.ts';
import { formatReference } from '../test/support/substrate-projects.ts';

/**
 * Records what SubQuery makes of each project of test/support/evm-projects.ts over the EVM projects'
 * workload (devchain/evm-projects-workload.ts): each project built by SubQuery's own CLI (`subql
 * codegen && subql build`, with ethers 5 and the project's packages, as its users build it) and
 * indexed by SubQuery's own node (@subql/node-ethereum, bench/subql-node.ts), its entity tables,
 * every version, in `<project>/reference.json`, which test/evm-projects.test.ts compares idx's with.
 *
 *   DB_HOST=127.0.0.1 DB_USER=postgres node --no-node-snapshot --import tsx scripts/record-evm-references.ts [name…]
 *
 * SubQuery's CLI and the packages the projects import are installed once from the npm registry into
 * SUBQL_CLI_DIR (default ~/.cache/idx-bench/subql-cli-<version>). Re-record when the workload, a
 * project or a pinned version changes.
 */
const SUBQL_CLI_VERSION = '6.6.3';
/** what the projects' builds import, at the versions recorded with (ethers 5: the typechain factories SubQuery's codegen writes) */
const BUILD_PACKAGES = [
  '@subql/common-ethereum@4.10.1',
  '@subql/types-ethereum@4.2.3',
  'ethers@5.7.2',
  'abab@2.0.6',
  'assert@2.1.0',
  'typescript@5.9.3',
  '@subql/testing@2.3.1',
];

const names = process.argv.slice(2);
if (names.some((n) => !EVM_FIXTURES.some((f) => f.name === n))) throw new Error(`unknown project among ${names.join(', ')}`);
const fixtures = EVM_FIXTURES.filter((f) => names.length === 0 || names.includes(f.name));
if (!process.env.DB_HOST) throw new Error('set DB_HOST (and DB_USER, DB_PASS…): @subql/node-ethereum needs PostgreSQL');
const { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE } = process.env;
const dbEnv = { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE };

const td = teardowns();
try {
  const cliDir = process.env.SUBQL_CLI_DIR ?? join(homedir(), '.cache', 'idx-bench', `subql-cli-${SUBQL_CLI_VERSION}`);
  // installedBin installs the CLI; the build's packages go beside it, by the same npm command's --prefix
  const subql = await installedBin(cliDir, '@subql/cli', SUBQL_CLI_VERSION, 'about a minute');
  // once per list: a marker beside them names the packages last installed
  const marker = join(cliDir, '.idx-build-packages');
  if (!existsSync(marker) || (await readFile(marker, 'utf8')) !== BUILD_PACKAGES.join('\n')) {
    execFileSync('npm', ['install', '--prefix', cliDir, '--no-audit', '--no-fund', '--loglevel', 'error', ...BUILD_PACKAGES], { stdio: 'inherit' });
    await writeFile(marker, BUILD_PACKAGES.join('\n'));
  }
  const nodeBin = await subqlNodeEthereumBin();

  const anvil = await startAnvil(EVM_PROJECTS_ANVIL);
  td.teardown(() => anvil.stop());
  const workload = await runEvmProjectsWorkload(createRpcClient({ endpoints: [{ url: anvil.url }] }));
  console.log(`workload: blocks ${workload.startBlock}..${workload.lastBlock}, last ${workload.lastHash}`);
  for (const fixture of fixtures) {
    const parent = await mkdtemp(join(tmpdir(), 'idx-evm-reference-'));
    td.teardown(() => rm(parent, { recursive: true, force: true }));
    const dir = join(parent, fixture.name);
    await copyEvmFixture(fixture, dir);
    await symlink(join(cliDir, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const only = fixture.manifest === undefined ? [] : [fixture.manifest];
    execFileSync(process.execPath, [subql, 'codegen', ...only], { cwd: dir, stdio: 'inherit' });
    execFileSync(process.execPath, [subql, 'build', ...only], { cwd: dir, stdio: 'inherit' });
    // SubQuery's build writes the manifest compiled from project.ts beside it; a YAML manifest is run as it is
    const manifest = join(dir, fixture.manifest ?? 'project.yaml');
    await writeFile(manifest, localEvmManifest(await readFile(manifest, 'utf8'), anvil.url, contractOf(fixture, workload), workload.startBlock));
    const schema = `subql_ref_${fixture.name.replace(/-/g, '_')}`;
    const db = await createDb({ env: dbEnv });
    try {
      await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
      const run = await runSubqlNode(manifest, dbEnv, schema, workload.lastBlock, 120_000, nodeBin);
      const tables = await dumpEntityTables(db.kysely, schema);
      const reference = {
        recordedWith: `@subql/node-ethereum ${SUBQL_NODE_ETHEREUM_VERSION}, built by @subql/cli ${SUBQL_CLI_VERSION}`,
        workload: { lastBlock: workload.lastBlock, lastHash: workload.lastHash },
        outcome: { indexedTo: run.indexedTo, ...(run.error === undefined ? {} : { error: run.error }) },
        tables,
      };
      await writeFile(evmReferencePath(fixture), formatReference(reference));
      const versions = Object.values(tables).reduce((n, t) => n + t.rows.length, 0);
      console.log(`${fixture.name}: ${run.error === undefined ? `indexed to ${run.indexedTo}` : `stopped: ${run.error.split('\n')[0]}`}; ${versions} versions`);
    } finally {
      await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
      await db.close();
    }
  }
} finally {
  await td.run();
}
