import t from 'tap';
import { startSubstrateChain } from '../devchain/start-substrate-chain.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { PROGRAM_BACKEND } from './support/node-backends.ts';
import { copyProject } from './support/project-copies.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { indexedDbReads, indexInProcess } from './support/index-in-process.ts';
import { buildSubstrateStarter } from './support/substrate-project.ts';
import { uniqueSchemaName } from './support/test-backends.ts';

exitWhenDone();

const END = 4;
const built = await buildSubstrateStarter(t);

t.test('a restarted Substrate dev chain (same genesis, other blocks) is refused over the data of the last one', async (t) => {
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_substrate');
  const read = indexedDbReads(t, PROGRAM_BACKEND, dir, [schema]);
  const indexed = () =>
    read(async (db) => {
      const rows = await execute<{ key: string; value: unknown }>(
        db.kysely,
        `select key, value from ${quoteIdent(schema)}._metadata where key in ('lastProcessedHeight', 'lastVerifiableBlock', 'genesisHash') order by key`,
      );
      const samples = await execute(db.kysely, `select * from ${quoteIdent(schema)}.block_samples order by id, __block_range`);
      return { rows, samples };
    });

  // chopsticks takes the wall clock for block 1: each start is another chain on the same genesis
  const first = await startSubstrateChain();
  await first.newBlocks(END);
  await indexInProcess(PROGRAM_BACKEND, dir, first.wsUrl, ['--db-schema', schema], END);
  const before = await indexed();
  t.match(before.rows, [{ key: 'genesisHash' }, { key: 'lastProcessedHeight', value: END }, { key: 'lastVerifiableBlock', value: { height: END } }]);
  await first.close();

  const second = await startSubstrateChain();
  t.teardown(() => second.close());
  // beyond the first chain's height: today's node would index blocks END+1.. of it on top of the old rows
  await second.newBlocks(END + 2);
  const lines: string[] = [];
  const err = await indexInProcess(PROGRAM_BACKEND, dir, second.wsUrl, ['--db-schema', schema], END + 2, (l) => lines.push(l)).then(
    () => undefined,
    (e: unknown) => e as { code?: string; message: string },
  );
  t.equal(err?.code, 'CHAIN_HISTORY_MISMATCH', 'refused');
  t.match(err?.message, `this database indexed block ${END} as`);
  t.same(await indexed(), before, 'nothing written');
});
