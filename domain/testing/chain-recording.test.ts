import t from 'tap';
import { callKey, describeCall, parseRecording, printRecording, type ChainRecording } from './chain-recording.ts';

const recording: ChainRecording = {
  chainId: '31337',
  answers: new Map(
    [
      { call: { method: 'eth_getLogs', params: [{ fromBlock: '0x5', toBlock: '0x5' }] }, answer: { result: [{ data: '0x01' }] } },
      { call: { method: 'eth_chainId', params: [] }, answer: { result: '0x7a69' } },
      { call: { method: 'eth_call', params: [{ to: '0xaa' }, '0x5'] }, answer: { error: { code: 3, message: 'execution reverted', data: '0x08c3' } } },
      { call: { method: 'eth_getTransactionReceipt', params: ['0xbb'] }, answer: { result: null } },
    ].map((e) => [callKey(e.call), e] as const),
  ),
};

t.test('printed: a header, then one call per line in key order; parsed back to the same answers', async (t) => {
  const text = printRecording(recording);
  const lines = text.split('\n');
  t.equal(lines[0], '{"format":"idx-chain-recording","version":1,"chainId":"31337","calls":[');
  t.same(
    lines.slice(1, 5).map((l) => (JSON.parse(l.replace(/,$/, '')) as { method: string }).method),
    ['eth_call', 'eth_chainId', 'eth_getLogs', 'eth_getTransactionReceipt'],
  );
  t.equal(text, printRecording(parseRecording(text, 'r.json')), 'stable through a round trip');
  const parsed = parseRecording(text, 'r.json');
  t.equal(parsed.chainId, '31337');
  t.same(parsed.answers.get(callKey({ method: 'eth_call', params: [{ to: '0xaa' }, '0x5'] }))?.answer, {
    error: { code: 3, message: 'execution reverted', data: '0x08c3' },
  });
  t.same(parsed.answers.get(callKey({ method: 'eth_getTransactionReceipt', params: ['0xbb'] }))?.answer, { result: null }, 'a null result is an answer');
});

t.test('keys: the method and the parameters exactly; no parameters is an empty list', async (t) => {
  t.equal(callKey({ method: 'eth_chainId' }), callKey({ method: 'eth_chainId', params: [] }));
  t.not(callKey({ method: 'eth_getBalance', params: ['0xa', '0x1'] }), callKey({ method: 'eth_getBalance', params: ['0xa', '0x2'] }));
});

t.test('a call is described with its parameters, long ones cut', async (t) => {
  t.equal(describeCall({ method: 'eth_getBalance', params: ['0xa', '0x1'] }), 'eth_getBalance("0xa","0x1")');
  t.equal(describeCall({ method: 'state_getStorage', params: ['0x' + 'ab'.repeat(200)] }, 40), `state_getStorage("0x${'ab'.repeat(18)}…)`);
});

t.test('a damaged file is refused, naming it and what to do', async (t) => {
  const bad = (text: string) => t.throws(() => parseRecording(text, 'src/test/__recordings__/x.json'), { code: 'TEST_RECORDING_INVALID' });
  bad('{"format":');
  bad('{"format":"other","version":1,"chainId":"1","calls":[]}');
  bad('{"format":"idx-chain-recording","version":2,"chainId":"1","calls":[]}');
  bad('{"format":"idx-chain-recording","version":1,"calls":[]}');
  bad('{"format":"idx-chain-recording","version":1,"chainId":"1","calls":[{"method":"eth_chainId","params":[]}]}');
  t.throws(() => parseRecording('[]', 'src/test/__recordings__/x.json'), {
    message:
      'src/test/__recordings__/x.json: not a chain recording (format should be "idx-chain-recording"); delete it and run idx-node test --record to record it again',
  });
});
