import t from 'tap';
import { EVM_PROJECTS_ANVIL, runEvmProjectsWorkload } from '../devchain/evm-projects-workload.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { anvilForTest } from './support/anvil.ts';
import { compareDumps, dumpEntityTables } from './support/entity-table-dump.ts';
import { EVM_FIXTURES, prepareEvmFixture, readEvmReference } from './support/evm-projects.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { indexInProcess, openIndexedDb } from './support/index-in-process.ts';
import { PROGRAM_BACKEND } from './support/node-backends.ts';
import { uniqueSchemaName } from './support/test-backends.ts';

/**
 * Public SubQuery EVM projects (test/fixtures/evm-projects), each built unchanged with `idx codegen &&
 * idx build`, indexed by idx-node over one workload on a local anvil chain, and every version of every
 * entity table compared with what SubQuery made of the same project on the same blocks: its own CLI's
 * build run by its own node (`reference.json`, recorded by scripts/record-evm-references.ts).
 */
exitWhenDone();

const anvil = await anvilForTest(t, EVM_PROJECTS_ANVIL);
const workload = await runEvmProjectsWorkload(createRpcClient({ endpoints: [{ url: anvil.url }] }));

for (const fixture of EVM_FIXTURES) {
  t.test(`${fixture.name}: built unchanged by idx, indexed over the workload, its tables equal SubQuery's`, async (t) => {
    const reference = await readEvmReference(fixture);
    if (reference === undefined) return t.fail(`no reference.json: record it with scripts/record-evm-references.ts ${fixture.name}`);
    t.equal(reference.workload.lastHash, workload.lastHash, 'the reference was recorded on these very blocks (the workload is deterministic)');
    t.equal(reference.outcome.error, undefined, 'SubQuery indexed the whole workload');
    const prepared = await prepareEvmFixture(t, fixture, anvil.url, workload);
    const schema = uniqueSchemaName(`evm_${fixture.name.replace(/-/g, '_')}`);
    const log: string[] = [];
    await indexInProcess(PROGRAM_BACKEND, prepared.manifest, undefined, ['--db-schema', schema], workload.lastBlock, (line) => log.push(line));
    t.same(
      log.filter((line) => /ERROR/.test(line)),
      [],
      'no error on the way',
    );
    // opened once the node is done: PGlite is one process's database
    const db = await openIndexedDb(t, PROGRAM_BACKEND, prepared.dir, [schema]);
    const ours = await dumpEntityTables(db.kysely, schema);
    t.same(compareDumps(reference.tables, ours), [], 'every version of every table as SubQuery wrote it');
    t.ok(
      Object.values(ours).some((table) => table.rows.length > 0),
      'the workload reached the handlers',
    );
  });
}
