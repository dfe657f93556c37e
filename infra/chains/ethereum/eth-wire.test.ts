import t from 'tap';
import { toBlockRef, toEthBlock, toEthLog, toEthReceipt, toEthTransaction } from './eth-wire.ts';

// Real anvil objects are converted in create-ethereum-source.test.ts; these are the shapes other
// providers send: optional fields missing, mixed case, pre-London and pre-Byzantium leftovers.
const HASH = `0x${'AB'.repeat(32)}`;
const ADDR = `0x${'Cd'.repeat(20)}`;

const minimalBlock = {
  number: '0x10',
  hash: HASH,
  parentHash: `0x${'01'.repeat(32)}`,
  timestamp: '0x5f5e100',
  gasLimit: '0x1c9c380',
  gasUsed: '0x0',
  receiptsRoot: `0x${'02'.repeat(32)}`,
  stateRoot: `0x${'03'.repeat(32)}`,
  transactionsRoot: `0x${'04'.repeat(32)}`,
  transactions: [HASH],
};

t.test('a block with only the fields every node sends', async (t) => {
  const b = toEthBlock(minimalBlock, { full: false });
  t.match(b, {
    height: 16,
    hash: HASH.toLowerCase(),
    timestamp: 100_000_000,
    gasLimit: 30_000_000n,
    difficulty: 0n,
    size: 0,
    uncles: [],
    miner: `0x${'0'.repeat(40)}`,
    extraData: '0x',
  });
  t.same(b.transactionHashes, [HASH.toLowerCase()]);
  t.equal(b.transactions, undefined);
  t.notOk('baseFeePerGas' in b || 'totalDifficulty' in b || 'mixHash' in b, 'absent stays absent');
  t.same(toBlockRef(minimalBlock), { height: 16, hash: HASH.toLowerCase(), parentHash: `0x${'01'.repeat(32)}`, timestamp: 100_000_000 });
  const empty = toEthBlock({ ...minimalBlock, transactions: [] }, { full: true });
  t.same(empty.transactions, [], 'an empty block fetched with transactions has an empty list');
});

t.test('a legacy transaction without type, chainId or signature fields; contract creation', async (t) => {
  const raw = {
    hash: HASH,
    blockNumber: '0x10',
    blockHash: HASH,
    transactionIndex: '0x0',
    from: ADDR,
    to: null,
    value: '0xde0b6b3a7640000',
    input: '0x60AB',
    gas: '0x5208',
    gasPrice: '0x3b9aca00',
    nonce: '0x7',
  };
  const tx = toEthTransaction(raw);
  t.same(tx, {
    hash: HASH.toLowerCase(),
    blockNumber: 16,
    blockHash: HASH.toLowerCase(),
    transactionIndex: 0,
    from: ADDR.toLowerCase(),
    to: null,
    value: 10n ** 18n,
    input: '0x60ab',
    gas: 21_000n,
    gasPrice: 1_000_000_000n,
    nonce: 7,
  });
  t.equal(toEthTransaction({ ...raw, input: undefined, data: '0x12' }).input, '0x12', 'old nodes call it data');
});

t.test('a receipt from before Byzantium; a log without removed', async (t) => {
  const log = {
    address: ADDR,
    topics: [HASH],
    data: '0x',
    blockNumber: '0x10',
    blockHash: HASH,
    transactionHash: HASH,
    transactionIndex: '0x1',
    logIndex: '0x2',
  };
  t.same(toEthLog(log), {
    address: ADDR.toLowerCase(),
    topics: [HASH.toLowerCase()],
    data: '0x',
    blockNumber: 16,
    blockHash: HASH.toLowerCase(),
    transactionHash: HASH.toLowerCase(),
    transactionIndex: 1,
    logIndex: 2,
    removed: false,
  });
  const r = toEthReceipt({
    transactionHash: HASH,
    transactionIndex: '0x1',
    blockHash: HASH,
    blockNumber: '0x10',
    from: ADDR,
    to: ADDR,
    cumulativeGasUsed: '0xa',
    gasUsed: '0x5',
    root: HASH,
    logs: [log],
    logsBloom: '0x00',
  });
  t.match(r, { status: 1, contractAddress: null, cumulativeGasUsed: 10n, gasUsed: 5n, logs: [{ logIndex: 2 }] });
  t.notOk('effectiveGasPrice' in r);
});

t.test('what cannot be converted is named', async (t) => {
  t.throws(() => toEthBlock(null, { full: false }), { code: 'RPC_BAD_RESPONSE', message: 'expected a block object from the endpoint, got null' });
  t.throws(() => toEthBlock({ ...minimalBlock, gasLimit: undefined }, { full: false }), {
    message: 'expected block gasLimit as 0x-prefixed hex, got undefined',
  });
  t.throws(() => toEthLog({ address: ADDR, topics: [], data: '0x', blockNumber: null }), { message: 'expected log blockNumber as 0x-prefixed hex, got null' });
  t.throws(() => toEthBlock({ ...minimalBlock, number: 16n }, { full: false }), { message: 'expected block number as 0x-prefixed hex, got 16' });
});
