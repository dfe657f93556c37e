import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { callKey } from '../../../domain/testing/chain-recording.ts';
import { readRecording, recordingPathOf, writeRecording } from './test-recordings.ts';

t.test('a recording lives beside the source of its test', async (t) => {
  t.equal(recordingPathOf('/p', '/p/dist/test/transfer.test.js'), '/p/src/test/__recordings__/transfer.json');
  t.equal(recordingPathOf('/p', '/p/dist/tests/deep/block.test.js'), '/p/src/tests/deep/__recordings__/block.json');
});

t.test('written whole, read back; none is undefined', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'idx-recordings-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const path = recordingPathOf(root, join(root, 'dist', 'test', 'a.test.js'));
  t.equal(await readRecording(path), undefined);
  const call = { method: 'eth_chainId', params: [] };
  await writeRecording(path, { chainId: '1', answers: new Map([[callKey(call), { call, answer: { result: '0x1' } }]]) });
  const back = await readRecording(path);
  t.equal(back?.answers.get(callKey(call))?.answer && JSON.stringify(back.answers.get(callKey(call))!.answer), '{"result":"0x1"}');
  t.match(await readFile(path, 'utf8'), /^\{"format":"idx-chain-recording"/);
  await writeFile(path, 'oops');
  await t.rejects(readRecording(path), { code: 'TEST_RECORDING_INVALID' });
});
