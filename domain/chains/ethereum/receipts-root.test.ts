import t from 'tap';
import { bytesToHex } from 'viem/utils';
import { anvilBlocks } from './fixtures/anvil-receipts.ts';
import { encodeReceipt, receiptsRoot } from './receipts-root.ts';
import { integerBytes, rlpBytes, rlpList } from './rlp.ts';
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from './trie-root.ts';

const receipts = (block: (typeof anvilBlocks)[number]) => block.receipts.map((r) => ({ ...r, cumulativeGasUsed: BigInt(r.cumulativeGasUsed) }));

t.test('RLP as the yellow paper gives it', async (t) => {
  const text = (s: string) => new TextEncoder().encode(s);
  t.equal(bytesToHex(rlpBytes(text('dog'))), '0x83646f67');
  t.equal(bytesToHex(rlpList([rlpBytes(text('cat')), rlpBytes(text('dog'))])), '0xc88363617483646f67');
  t.equal(bytesToHex(rlpBytes(new Uint8Array(0))), '0x80');
  t.equal(bytesToHex(rlpList([])), '0xc0');
  t.equal(bytesToHex(rlpBytes(integerBytes(0))), '0x80');
  t.equal(bytesToHex(rlpBytes(integerBytes(15))), '0x0f');
  t.equal(bytesToHex(rlpBytes(integerBytes(1024))), '0x820400');
  const long = text('Lorem ipsum dolor sit amet, consectetur adipisicing elit');
  t.equal(bytesToHex(rlpBytes(long)).slice(0, 6), '0xb838');
  t.throws(() => integerBytes(-1));
});

t.test("receipts roots of anvil blocks equal their headers'", async (t) => {
  for (const block of anvilBlocks) t.equal(receiptsRoot(receipts(block)), block.receiptsRoot, `block ${block.height}`);
  t.equal(orderedTrieRoot([]), EMPTY_TRIE_ROOT);
});

t.test('a typed receipt is its type byte, then the RLP of its fields', async (t) => {
  const [legacy, accessList] = receipts(anvilBlocks[1]!);
  t.equal(legacy!.type, 0);
  t.equal(accessList!.type, 1);
  const plain = encodeReceipt({ ...accessList!, type: 0 });
  t.same(encodeReceipt(accessList!), Uint8Array.of(1, ...plain));
  t.equal(plain[0]! >= 0xc0, true, 'an untyped receipt is an RLP list');
});

t.test('any change to a receipt changes the root', async (t) => {
  const list = receipts(anvilBlocks[0]!);
  const root = anvilBlocks[0]!.receiptsRoot;
  const withLog = (i: number, change: object) => list.map((r, k) => (k === 0 ? { ...r, logs: r.logs.map((l, j) => (j === i ? { ...l, ...change } : l)) } : r));
  t.not(receiptsRoot(withLog(0, { data: '0x' + '00'.repeat(32) })), root, 'data');
  t.not(receiptsRoot(list.map((r, k) => (k === 0 ? { ...r, logs: [] } : r))), root, 'a dropped log');
  t.not(receiptsRoot(list.map((r, k) => (k === 1 ? { ...r, status: 0 } : r))), root, 'a status');
  t.not(receiptsRoot([...list].reverse()), root, 'the order');
  t.equal(receiptsRoot(list.map((r) => ({ ...r, root: undefined }))), root, 'a receipt with a status has no state root');
});
