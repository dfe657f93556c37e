import t, { type Test } from 'tap';
import { mkdtemp, readdir, readFile, rm, truncate, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkedBody, encodeSegment, segmentEntries, segmentLayout } from './cache-segment.ts';
import { chainDir, clearRpcCache, evict, openRpcCacheStore, rpcCacheUsage } from './rpc-cache-store.ts';

const CHAIN = `0x${'12'.repeat(32)}`;
const tempRoot = async (t: Test) => {
  const root = await mkdtemp(join(tmpdir(), 'idx-rpc-cache-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  return root;
};
const segmentsOf = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.seg'));

t.test('a segment: its header lists each answer; a changed byte fails its checksum', async (t) => {
  const { bytes, entries } = encodeSegment([
    { key: 'k1', json: '{"a":1}' },
    { key: 'k2', json: '[1,2]', span: { filter: 'f', from: 1, to: 9 } },
  ]);
  const layout = segmentLayout(bytes)!;
  t.same(segmentEntries(bytes.subarray(layout.headerStart, layout.headerStart + layout.headerLength)), entries);
  t.same(entries[1], { key: 'k2', offset: 7, length: 5, span: { filter: 'f', from: 1, to: 9 } });
  t.equal(checkedBody(bytes)?.toString(), '{"a":1}[1,2]');
  const damaged = Buffer.from(bytes);
  damaged[damaged.length - 2] = 0x33;
  t.equal(checkedBody(damaged), undefined);
  t.equal(checkedBody(bytes.subarray(0, bytes.length - 1)), undefined, 'cut short');
  t.equal(segmentLayout(Buffer.from('not a segment\n')), undefined);
});

t.test('kept answers are found again by a later process, a fresh copy each time', async (t) => {
  const root = await tempRoot(t);
  const one = await openRpcCacheStore({ root, chain: CHAIN, maxBytes: 2 ** 20 });
  one.put([
    { key: 'a', value: { n: 1 } },
    { key: 'l', value: [], span: { filter: 'f', from: 1, to: 5 } },
  ]);
  t.same(await one.get('a'), undefined, 'not there before the write ends');
  await one.flush();
  t.same(await one.get('a'), { n: 1 }, 'the writer finds its own answers');
  const two = await openRpcCacheStore({ root, chain: CHAIN, maxBytes: 2 ** 20 });
  const got = (await two.get('a')) as { n: number };
  got.n = 2;
  t.same(await two.get('a'), { n: 1 });
  t.same(two.spans('f'), [{ from: 1, to: 5, at: 'l' }]);
  const other = await openRpcCacheStore({ root, chain: `0x${'34'.repeat(32)}`, maxBytes: 2 ** 20 });
  t.equal(await other.get('a'), undefined, "another chain never sees this chain's answers");
  t.same(
    (await readdir(chainDir(root, CHAIN))).filter((n) => n.startsWith('.tmp-')),
    [],
    'no temporary file is left',
  );
});

t.test('a damaged segment is never served: it is dropped and the answer refetched', async (t) => {
  const root = await tempRoot(t);
  const one = await openRpcCacheStore({ root, chain: CHAIN, maxBytes: 2 ** 20 });
  one.put([{ key: 'a', value: { n: 'x'.repeat(100) } }]);
  await one.flush();
  const dir = chainDir(root, CHAIN);
  const [seg] = await segmentsOf(dir);
  const bytes = await readFile(join(dir, seg!));
  bytes[bytes.length - 3] = 0x79;
  await writeFile(join(dir, seg!), bytes);
  const two = await openRpcCacheStore({ root, chain: CHAIN, maxBytes: 2 ** 20 });
  t.equal(await two.get('a'), undefined);
  t.same(await segmentsOf(dir), [], 'and removed');
  one.put([{ key: 'b', value: 1 }]);
  await one.flush();
  const [seg2] = await segmentsOf(dir);
  await truncate(join(dir, seg2!), 30);
  const three = await openRpcCacheStore({ root, chain: CHAIN, maxBytes: 2 ** 20 });
  t.equal(await three.get('b'), undefined, 'a segment cut short is not even indexed');
});

t.test('bounded: the least recently used segments go, across chains; clear empties it', async (t) => {
  const root = await tempRoot(t);
  const store = await openRpcCacheStore({ root, chain: CHAIN, maxBytes: 10 * 2 ** 20 });
  for (let i = 0; i < 5; i++) {
    store.put([{ key: `k${i}`, value: 'x'.repeat(1000) }]);
    await store.flush();
  }
  const dir = chainDir(root, CHAIN);
  const names = (await segmentsOf(dir)).sort();
  // the oldest written is the most recently used
  await utimes(join(dir, names[0]!), new Date(), new Date(Date.now() + 60_000));
  const size = (await rpcCacheUsage(root))[0]!.bytes;
  t.equal(await evict(root, size), size, 'within the bound: nothing goes');
  const left = await evict(root, Math.floor((size * 3) / 5));
  t.ok(left <= (size * 3 * 0.9) / 5);
  const kept = await segmentsOf(dir);
  t.ok(kept.includes(names[0]!), 'the recently used one stays');
  t.notOk(kept.includes(names[1]!), 'the least recently used went');
  await writeFile(join(root, 'not-ours.txt'), 'x');
  const cleared = await clearRpcCache(root);
  t.equal(cleared.chains, 1);
  t.same(await readdir(root), ['not-ours.txt'], 'only the cache goes');
});
