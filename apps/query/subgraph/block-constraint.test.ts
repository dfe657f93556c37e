import t from 'tap';
import type { EntityTable } from '../entity-tables.ts';
import { blockConstraint, constrainedBlock, heightFor, type BlockLookup } from './block-constraint.ts';

const chain = (head: number, hashes: Record<string, number> = {}): BlockLookup & { reads: number } => {
  const c = {
    deployment: 'app',
    reads: 0,
    head: async () => (c.reads++, head),
    numberOf: async (hash: string) => hashes[hash],
  };
  return c;
};
const table = (historical: boolean) => ({ historical, entity: { name: 'Transfer' } }) as unknown as EntityTable;

t.test('which block an argument names: hash, else number, else number_gte', async (t) => {
  t.same(blockConstraint(undefined), { kind: 'latest' });
  t.same(blockConstraint(null), { kind: 'latest' });
  t.same(blockConstraint({ number: 5 }), { kind: 'number', number: 5 });
  t.same(blockConstraint({ number_gte: 5 }), { kind: 'min', number: 5 });
  t.same(blockConstraint({ hash: '0xAB', number: 5, number_gte: 3 }), { kind: 'hash', hash: '0xab' });
  t.same(blockConstraint({ number: 5, number_gte: 3 }), { kind: 'number', number: 5 });
  t.same(blockConstraint({ number: null, number_gte: 3 }), { kind: 'min', number: 3 }, 'null is as if absent');
  t.throws(() => blockConstraint({}), { message: /give one of hash, number or number_gte/, extensions: { code: 'BAD_USER_INPUT' } });
  t.throws(() => blockConstraint({ number: -1 }), { message: /block.number must be a block number/ });
});

t.test('checked against the head as graph-node checks it', async (t) => {
  const c = chain(100, { '0xaa': 40 });
  t.equal(await constrainedBlock({ kind: 'latest' }, c), undefined);
  t.equal(c.reads, 0, 'the latest block needs no metadata');
  t.equal(await constrainedBlock({ kind: 'number', number: 100 }, c), 100);
  t.equal(await constrainedBlock({ kind: 'min', number: 100 }, c), undefined, 'number_gte reached: the latest');
  await t.rejects(constrainedBlock({ kind: 'number', number: 101 }, c), {
    message: 'block.number: subgraph app has only indexed up to block number 100 and data for block number 101 is therefore not yet available',
    extensions: { code: 'BAD_USER_INPUT' },
  });
  await t.rejects(constrainedBlock({ kind: 'min', number: 150 }, c), {
    message: /^block.number_gte: subgraph app has only indexed up to block number 100 and data for block number 150/,
  });
  t.equal(await constrainedBlock({ kind: 'hash', hash: '0xaa' }, c), 40);
  await t.rejects(constrainedBlock({ kind: 'hash', hash: '0xbb' }, c), {
    message: /block.hash 0xbb: no block with that hash found.*--proof-of-index.*--unfinalized-blocks; query by block number instead/,
    extensions: { code: 'BAD_USER_INPUT' },
  });
});

t.test('the height a table is read at', async (t) => {
  const c = chain(100);
  t.equal(await heightFor(table(true), { number: 50 }, c), 50n);
  t.equal(await heightFor(table(true), undefined, c), undefined);
  t.equal(await heightFor(table(false), { number: 100 }, c), undefined, 'without history: the head is the live rows');
  await t.rejects(heightFor(table(false), { number: 50 }, c), {
    message: /Transfer was indexed with --disable-historical/,
    extensions: { code: 'BAD_USER_INPUT' },
  });
});
