import t from 'tap';
import { bytesToHex } from 'viem/utils';
import { anvilBlocks } from './fixtures/anvil-receipts.ts';
import { bloomAdmits, bloomBits, bloomHas, bloomHasLog, createBloomBitsCache, logsBloom, parseBloom, sameBloom } from './logs-bloom.ts';

const [erc20Block, plainBlock] = anvilBlocks;
const logs = erc20Block!.receipts.flatMap((r) => r.logs);
const bloom = parseBloom(erc20Block!.logsBloom);
const other = '0x' + 'ab'.repeat(20);

t.test("the bloom of a block's logs is its header's, and of each receipt its own", async (t) => {
  t.equal(bytesToHex(logsBloom(logs)), erc20Block!.logsBloom);
  for (const r of erc20Block!.receipts) t.equal(bytesToHex(logsBloom(r.logs)), r.logsBloom);
  t.ok(sameBloom(logsBloom([]), parseBloom(plainBlock!.logsBloom)), 'no logs: an empty bloom');
});

t.test("every value sets at most 3 bits; a log is in its block's bloom, others mostly not", async (t) => {
  const bits = bloomBits(logs[0]!.address);
  t.ok([bits[0], bits[2], bits[4]].every((i) => i >= 0 && i < 256));
  t.ok(bloomHas(bloom, bits));
  t.ok(logs.every((l) => bloomHasLog(bloom, l)));
  t.notOk(bloomHasLog(bloom, { address: other, topics: [] }));
  t.notOk(bloomHasLog(bloom, { ...logs[0]!, topics: [...logs[0]!.topics, '0x' + '11'.repeat(32)] }), 'one topic not in the block is enough');
  t.throws(() => parseBloom('0x00'), /256 bytes/);
});

t.test('a query is admitted when one of its addresses and, per position, one of its topics is in the bloom', async (t) => {
  const [transfer] = logs;
  t.ok(bloomAdmits(bloom, {}), 'no filter: any block with logs');
  t.notOk(bloomAdmits(parseBloom(plainBlock!.logsBloom), {}), 'but not one without');
  t.ok(bloomAdmits(bloom, { address: [other, transfer!.address], topics: [[transfer!.topics[0]!], null, [transfer!.topics[2]!]] }));
  t.notOk(bloomAdmits(bloom, { address: [other] }));
  t.notOk(bloomAdmits(bloom, { address: [transfer!.address], topics: [['0x' + '11'.repeat(32)]] }));
  t.notOk(bloomAdmits(bloom, { address: [] }), 'an empty address list matches nothing');
});

t.test('the cache gives the same bits, and forgets when full', async (t) => {
  const bitsOf = createBloomBitsCache(2);
  for (const l of logs) for (const v of [l.address, ...l.topics]) t.same(bitsOf(v), bloomBits(v));
});
