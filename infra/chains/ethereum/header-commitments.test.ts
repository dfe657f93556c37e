import t from 'tap';
import { bloomAdmits, bloomHasLog, logsBloom, parseBloom, sameBloom } from '../../../domain/chains/ethereum/logs-bloom.ts';
import { receiptsRoot } from '../../../domain/chains/ethereum/receipts-root.ts';
import { EMPTY_TRIE_ROOT } from '../../../domain/chains/ethereum/trie-root.ts';
import { bytesToHex } from 'viem/utils';
import { anvilForTest } from '../../../test/support/anvil.ts';
import { makeErc20Workload } from '../../../devchain/make-erc20-workload.ts';
import { ANVIL_DEV_ACCOUNT } from '../../../devchain/start-anvil.ts';
import { createEthereumSource } from './create-ethereum-source.ts';
import { createRpcClient } from '../../rpc/create-rpc-client.ts';
import { hexToNumber, toQuantity } from '../../rpc/hex-quantity.ts';

// The bloom and receipts-root code checked against what a real node (anvil) commits to in its headers.
t.test('blooms and receipts roots recomputed from anvil blocks equal their headers', async (t) => {
  const anvil = await anvilForTest(t);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  const source = createEthereumSource(client);
  // 130 transactions in one block: receipt keys rlp(i) past 0x7f take two bytes, and the trie gets extension nodes
  const work = await makeErc20Workload(client, { blocks: 3, transfersPerBlock: 130, approvalsPerBlock: 3, senders: 30, recipients: 50 });

  // one block of every legacy-compatible receipt shape: legacy, access list (1) and dynamic fee (2) transactions, a revert, a plain transfer
  await client.request('evm_setAutomine', [false]);
  const base = { from: ANVIL_DEV_ACCOUNT, to: work.token, gas: toQuantity(100_000) };
  const transfer = '0xa9059cbb' + '00'.repeat(12) + work.recipients[0]!.slice(2) + 1n.toString(16).padStart(64, '0');
  const nonce = hexToNumber(await client.request('eth_getTransactionCount', [ANVIL_DEV_ACCOUNT, 'pending']));
  await client.batch([
    {
      method: 'eth_sendTransaction',
      params: [
        { ...base, data: '0x', to: work.recipients[1], value: '0x1', gasPrice: toQuantity(10n ** 10n), nonce: toQuantity(nonce), gas: toQuantity(21_000) },
      ],
    },
    {
      method: 'eth_sendTransaction',
      params: [{ ...base, data: transfer, gasPrice: toQuantity(10n ** 10n), accessList: [], type: '0x1', nonce: toQuantity(nonce + 1) }],
    },
    // the dev account holds no tokens: this transfer reverts (status 0, no logs)
    {
      method: 'eth_sendTransaction',
      params: [{ ...base, data: transfer, maxFeePerGas: toQuantity(10n ** 11n), maxPriorityFeePerGas: '0x1', nonce: toQuantity(nonce + 2) }],
    },
  ]);
  await client.request('evm_mine');
  await client.request('evm_setAutomine', [true]);
  const typedBlock = hexToNumber(await client.request('eth_blockNumber'));

  const heights = [work.mintBlock, work.fromBlock, work.toBlock, typedBlock];
  const blocks = await source.getBlocks(heights, { transactions: false });
  const receipts = await source.getBlockReceipts(heights);
  const types = new Set(receipts.flat().map((r) => r.type ?? 0));
  t.same([...types].sort(), [0, 1, 2], 'legacy, access-list and dynamic-fee receipts are covered');
  t.ok(
    receipts.flat().some((r) => r.status === 0),
    'a failed transaction is covered',
  );
  t.ok(
    receipts.some((list) => list.length > 128),
    'a block of more than 128 receipts is covered',
  );
  blocks.forEach((block, i) => {
    const logs = receipts[i]!.flatMap((r) => r.logs);
    t.equal(bytesToHex(logsBloom(logs)), block.logsBloom, `block ${block.height}: the bloom of its logs is the header's`);
    t.equal(receiptsRoot(receipts[i]!), block.receiptsRoot, `block ${block.height}: receipts root`);
    const bloom = parseBloom(block.logsBloom);
    t.ok(
      logs.every((l) => bloomHasLog(bloom, l)),
      'every log is in the bloom',
    );
    const altered = receipts[i]!.map((r) => ({ ...r, logs: r.logs.map((l) => ({ ...l, data: l.data.replace(/.$/, (c) => (c === '0' ? '1' : '0')) })) }));
    if (logs.length > 0) t.not(receiptsRoot(altered), block.receiptsRoot, 'one altered data byte changes the root');
  });
  const transfers = receipts[1]!.flatMap((r) => r.logs);
  const notThere = '0x' + 'ab'.repeat(20);
  t.notOk(bloomHasLog(parseBloom(blocks[1]!.logsBloom), { address: notThere, topics: [] }), 'an address not in the block is refused');
  t.ok(bloomAdmits(parseBloom(blocks[1]!.logsBloom), { address: [work.token], topics: [[transfers[0]!.topics[0]!]] }), 'the filter of its logs is admitted');
  t.notOk(bloomAdmits(parseBloom(blocks[1]!.logsBloom), { address: [notThere] }), 'a filter for another address is not');

  const [empty] = await source.getBlocks([0], { transactions: false });
  t.equal(empty!.receiptsRoot, EMPTY_TRIE_ROOT, 'genesis has no receipts');
  t.ok(sameBloom(logsBloom([]), parseBloom(empty!.logsBloom)), 'and an empty bloom');
});
