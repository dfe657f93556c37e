import t from 'tap';
import { callKey, type ChainRecording, type RecordedAnswer, type RecordedCall } from '../../../domain/testing/chain-recording.ts';
import type { TapeMode } from '../../../infra/rpc/taped-client.ts';
import { createTestTapes, type TapedFile } from './test-tapes.ts';

const chainId = '31337';
const recordingOf = (entries: [RecordedCall, RecordedAnswer][], id = chainId): ChainRecording => ({
  chainId: id,
  answers: new Map(entries.map(([call, answer]) => [callKey(call), { call, answer }])),
});
const chainIdCall = { method: 'eth_chainId', params: [] };
const logsCall = { method: 'eth_getLogs', params: [{ fromBlock: '0x5' }] };
const file = (name: string, recording?: ChainRecording): TapedFile => ({
  file: `/p/dist/test/${name}.test.js`,
  recordingPath: `/p/src/test/__recordings__/${name}.json`,
  recording,
});
const replay = (mode: TapeMode) => {
  if (mode.kind !== 'replay') throw new Error(`expected replay, got ${mode.kind}`);
  return mode;
};

t.test('--record: start-up calls go into every file, each file its own calls', async (t) => {
  const tapes = createTestTapes({ record: true, chainId, projectRoot: '/p', files: [file('a'), file('b')] });
  const keep = (call: RecordedCall, result: unknown) => {
    const mode = tapes.mode();
    if (mode.kind !== 'record') throw new Error('not recording');
    mode.keep(call, { result });
  };
  keep(chainIdCall, '0x7a69');
  tapes.useFile(file('a'));
  keep(logsCall, ['a']);
  t.same([...tapes.recorded().answers.keys()], [callKey(chainIdCall), callKey(logsCall)]);
  tapes.useFile(file('b'));
  t.same([...tapes.recorded().answers.keys()], [callKey(chainIdCall)], "b starts with start-up's calls only");
  t.equal(tapes.recorded().chainId, chainId);
});

t.test('replay: start-up from the recordings when every file has one; each file from its own; a miss names the file and what to run', async (t) => {
  const a = recordingOf([
    [chainIdCall, { result: '0x7a69' }],
    [logsCall, { result: ['a'] }],
  ]);
  const b = recordingOf([[chainIdCall, { result: '0x7a69' }]]);
  const tapes = createTestTapes({ record: false, chainId, projectRoot: '/p', files: [file('a', a), file('b', b)] });
  t.same(replay(tapes.mode()).answer(chainIdCall), { result: '0x7a69' });
  tapes.useFile(file('b', b));
  t.throws(() => replay(tapes.mode()).answer(logsCall), {
    code: 'TEST_NOT_RECORDED',
    message:
      'src/test/__recordings__/b.json holds no answer for eth_getLogs({"fromBlock":"0x5"}): the project asks the chain for something it did not when the recording was made. Run idx-node test --record, with the endpoint reachable, to record the tests again',
  });
  t.equal(tapes.takeMisses().length, 1, 'the miss is remembered, even if a mapping caught it');
  t.same(tapes.takeMisses(), [], 'and taken once');
  tapes.useFile(file('a', a));
  t.same(replay(tapes.mode()).answer(logsCall), { result: ['a'] });
});

t.test('a file without a recording runs live, and so does start-up then', async (t) => {
  const a = recordingOf([[chainIdCall, { result: '0x7a69' }]]);
  const tapes = createTestTapes({ record: false, chainId, projectRoot: '/p', files: [file('a', a), file('b')] });
  t.equal(tapes.mode().kind, 'live');
  tapes.useFile(file('a', a));
  t.equal(tapes.mode().kind, 'replay');
  tapes.useFile(file('b'));
  t.equal(tapes.mode().kind, 'live');
  t.equal(createTestTapes({ record: false, chainId, projectRoot: '/p', files: [] }).mode().kind, 'live', 'no files: live');
});

t.test('a recording of another chain is refused', async (t) => {
  t.throws(() => createTestTapes({ record: false, chainId, projectRoot: '/p', files: [file('a', recordingOf([], '1'))] }), {
    code: 'TEST_RECORDING_MISMATCH',
    message:
      "src/test/__recordings__/a.json was recorded from chain 1, but the manifest's network.chainId is 31337: run idx-node test --record to record it from this chain",
  });
});
