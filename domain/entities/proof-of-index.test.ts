import { createHash } from 'node:crypto';
import t from 'tap';
import { bytesToHex } from 'viem/utils';
import type { StoreOperation } from './entity-store.ts';
import { encodeOperation, operationHashRoot, poiRow } from './proof-of-index.ts';

const sha256 = (d: Uint8Array) => new Uint8Array(createHash('sha256').update(d).digest());
const hex = (b: Uint8Array | null) => (b === null ? null : bytesToHex(b));
const BLOCK = `0x${'ab'.repeat(32)}`;

const ops: StoreOperation[] = [
  { entity: 'Transfer', id: 't1', height: 7, op: 'set', data: { id: 't1', value: 5n, at: new Date(0), raw: new Uint8Array([1, 2]), b: 1, a: null } },
  { entity: 'Account', id: 'a', height: 7, op: 'remove' },
  { entity: 'Account', id: 'b', height: 7, op: 'set', data: { id: 'b' } },
];

t.test('operations encode the same whatever the key order', async (t) => {
  const a = encodeOperation({ entity: 'E', id: '1', height: 1, op: 'set', data: { x: 1n, y: 'z' } });
  const b = encodeOperation({ entity: 'E', id: '1', height: 1, op: 'set', data: { y: 'z', x: 1n } });
  t.same(a, b);
  t.equal(new TextDecoder().decode(encodeOperation(ops[1]!)), '["Remove","Account","a"]');
  t.match(new TextDecoder().decode(encodeOperation(ops[0]!)), '"value":"5n"');
});

t.test('the root changes with any operation, and with their order', async (t) => {
  const root = hex(operationHashRoot(ops, sha256));
  t.equal(hex(operationHashRoot(ops, sha256)), root, 'deterministic');
  t.not(hex(operationHashRoot([ops[1]!, ops[0]!, ops[2]!], sha256)), root);
  t.not(hex(operationHashRoot([...ops.slice(0, 2), { ...ops[2]!, data: { id: 'b', v: 1 } } as StoreOperation], sha256)), root);
  t.equal(hex(operationHashRoot([ops[1]!], sha256)), hex(sha256(encodeOperation(ops[1]!))), 'one leaf is its own root');
});

t.test('each row chains to its parent', async (t) => {
  const first = poiRow({ height: 7, chainBlockHash: BLOCK, operations: ops, projectId: 'p', parentHash: null }, sha256);
  t.equal(first.id, 7);
  t.equal(hex(first.chainBlockHash), BLOCK);
  t.equal(first.parentHash, null);
  const second = poiRow({ height: 8, chainBlockHash: BLOCK, operations: ops, projectId: 'p', parentHash: first.hash }, sha256);
  t.same(second.parentHash, first.hash);
  t.not(hex(second.hash), hex(first.hash));
  const otherProject = poiRow({ height: 7, chainBlockHash: BLOCK, operations: ops, projectId: 'q', parentHash: null }, sha256);
  t.not(hex(otherProject.hash), hex(first.hash), 'the project id is covered');
  const again = poiRow({ height: 7, chainBlockHash: BLOCK, operations: ops, projectId: 'p', parentHash: null }, sha256);
  t.equal(hex(again.hash), hex(first.hash), 'two runs agree');
});
