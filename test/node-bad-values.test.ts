import t from 'tap';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, envFor, openRunSchema } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject, rebuild } from './support/project-copies.ts';
import { patchStarterMapping } from './support/starter-mapping.ts';
import { runNodeCli } from './support/watched-node.ts';

// A value the database would refuse fails the block that wrote it, when it writes it: the error
// names the handler, the block, the entity, its id and the field, and the blocks before it in the
// same batch are saved (before, the whole batch failed at its flush with only the database's words).

const { anvil, workload, built } = await setupErc20Chain(t, 8);

const cases: [string, string, RegExp][] = [
  [
    'a NUL byte',
    'transactionHash: log.blockNumber === FAIL ? "0x\\u0000" : log.transactionHash,',
    /Transfer "0x[0-9a-f]{64}-\d+": transactionHash: holds a NUL byte/,
  ],
  [
    'an invalid Date',
    'timestamp: log.blockNumber === FAIL ? new Date(NaN) : new Date(Number(log.block.timestamp) * 1000),',
    /Transfer "0x[0-9a-f]{64}-\d+": timestamp: expected a valid Date, got an invalid one \(new Date\(NaN\)\)/,
  ],
];

// The checks run in the sandbox, before any SQL: one case per database is enough to show both keep the earlier blocks.
for (const [i, [what, replacement, message]] of cases.entries()) {
  const kind = BACKENDS[i % BACKENDS.length]!;
  t.test(`${kind}: ${what} fails its block at the write, naming handler, block, entity and field; earlier blocks of the batch are saved`, async (t) => {
    const dir = await copyProject(t, built);
    const failAt = workload.fromBlock + 3;
    const field = replacement.slice(0, replacement.indexOf(':'));
    await patchStarterMapping(dir, (source) => {
      const patched = source.replace(new RegExp(`\\n(\\s*)${field}: [^\\n]*,\\n`), `\n$1${replacement.replace('FAIL', String(failAt))}\n`);
      t.not(patched, source, 'the mapping was patched');
      return patched;
    });
    await rebuild(dir);
    const schema = uniqueSchemaName('idx_e2e');
    // one batch holds every block: nothing is flushed before the bad one is reached
    const r = await runNodeCli(dir, envFor(kind), ['--network-endpoint', anvil.url, '--batch-size', '50', '--db-schema', schema]);
    t.equal(r.code, 1);
    t.match(r.output, new RegExp(`Handler handleTransfer failed at block ${failAt}: store\\.set\\("Transfer", "0x[0-9a-f]{64}-\\d+"\\) failed: `));
    t.match(r.output, message);
    const { db, lastProcessedHeight } = await openRunSchema(t, kind, dir, schema);
    t.equal(lastProcessedHeight, failAt - 1, 'every block before the failing one was saved');
    const [count] = await execute<{ n: string }>(db.kysely, `select count(*)::text as n from ${quoteIdent(schema)}.transfers where block_height >= ${failAt}`);
    t.equal(count?.n, '0', 'nothing of the failing block was saved');
  });
}
