import t from 'tap';
import { IdxError } from '../../errors.ts';
import {
  eventTopic,
  functionSelector,
  matchesFunctionFilter,
  matchesModulo,
  matchesTopicFilter,
  normaliseTopicFilter,
  parseFunctionFilter,
  type Keccak256,
} from './filters.ts';

// Known keccak256 values: the table also checks that exactly the canonical signature is hashed.
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const APPROVE = '0x095ea7b334ae44009aa867bfb386f5c3b4b443ac6f0ee573fa91c4608fbadfba';
const keccak256: Keccak256 = (text) => {
  const known: Record<string, string> = {
    'Transfer(address,address,uint256)': TRANSFER.toUpperCase().replace('0X', '0x'),
    'approve(address,uint256)': APPROVE,
  };
  if (!(text in known)) throw new Error(`unexpected hash input ${text}`);
  return known[text]!;
};
const ADDR_TOPIC = '0x000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';

t.test('eventTopic and functionSelector hash the canonical signature', async (t) => {
  t.equal(eventTopic('Transfer(address indexed from, address indexed to, uint256 amount)', keccak256), TRANSFER);
  t.equal(functionSelector('approve(address spender, uint256 rawAmount)', keccak256), '0x095ea7b3');
  t.throws(() => eventTopic('Transfer(', keccak256), { code: 'INVALID_SIGNATURE' });
  t.ok(t.throws(() => functionSelector('nope', keccak256)) instanceof IdxError);
});

t.test('normaliseTopicFilter', async (t) => {
  t.same(normaliseTopicFilter(undefined, keccak256), []);
  t.same(normaliseTopicFilter(['Transfer(address,address,uint256)', null, undefined, '!null'], keccak256), [TRANSFER, null, null, '!null']);
  t.same(normaliseTopicFilter([TRANSFER.toUpperCase().replace('0X', '0x'), '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'], keccak256), [TRANSFER, ADDR_TOPIC]);
});

t.test('matchesTopicFilter', async (t) => {
  const log = [TRANSFER, ADDR_TOPIC, `0x${'00'.repeat(32)}`];
  t.ok(matchesTopicFilter([], log), 'no conditions: every log');
  t.ok(matchesTopicFilter([TRANSFER], log));
  t.ok(
    matchesTopicFilter(
      [TRANSFER, ADDR_TOPIC],
      log.map((x) => x.toUpperCase().replace('0X', '0x')),
    ),
    'case-insensitive',
  );
  t.notOk(matchesTopicFilter([ADDR_TOPIC], log));
  t.ok(matchesTopicFilter([null, null, '!null'], log));
  t.notOk(matchesTopicFilter([null, null, null, '!null'], log), '!null needs the topic to be present');
  t.ok(matchesTopicFilter([null, null, null, null], log), 'null matches an absent topic');
  t.notOk(matchesTopicFilter([TRANSFER, null, null, ADDR_TOPIC], log));
});

t.test('parseFunctionFilter and matchesFunctionFilter', async (t) => {
  const approveCall = '0x095ea7b3000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
  t.same(parseFunctionFilter(undefined, keccak256), { kind: 'any' });
  t.same(parseFunctionFilter(null, keccak256), { kind: 'no-input' });
  t.same(parseFunctionFilter('0x', keccak256), { kind: 'no-input' });
  t.same(parseFunctionFilter('0x095EA7B3', keccak256), { kind: 'prefix', prefix: '0x095ea7b3' });
  t.same(parseFunctionFilter('approve(address spender, uint256 rawAmount)', keccak256), { kind: 'prefix', prefix: '0x095ea7b3' });

  t.ok(matchesFunctionFilter({ kind: 'any' }, '0x'));
  t.ok(matchesFunctionFilter({ kind: 'no-input' }, '0x'));
  t.notOk(matchesFunctionFilter({ kind: 'no-input' }, approveCall));
  t.ok(matchesFunctionFilter(parseFunctionFilter('approve(address,uint256)', keccak256), approveCall.toUpperCase().replace('0X', '0x')));
  t.notOk(matchesFunctionFilter({ kind: 'prefix', prefix: '0xa9059cbb' }, approveCall));
  t.notOk(matchesFunctionFilter({ kind: 'prefix', prefix: '0x095ea7b3' }, '0x'));
});

t.test('matchesModulo', async (t) => {
  t.ok(matchesModulo(7, undefined));
  t.ok(matchesModulo(100, 50));
  t.notOk(matchesModulo(101, 50));
  t.ok(matchesModulo(0, 3));
  t.ok(matchesModulo(10_000_000_000n, 1000));
  t.notOk(matchesModulo(10_000_000_001n, 1000));
});
