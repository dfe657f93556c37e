import t from 'tap';
import { createRunProgress } from './run-progress.ts';

t.test('the host reads the words the runtime writes into the buffer, asks the end there, and a reset clears them', async (t) => {
  const run = createRunProgress();
  // the runtime's view, as the prelude makes it from the buffer it is installed with
  const words = new Int32Array(run.buffer);
  words[0] = 7;
  words[1] = 3;
  t.equal(run.progress(), 7, 'the call running');
  t.equal(run.progressBlock(), 3, 'the block of the run');
  t.equal(Atomics.load(words, 2), 0);
  run.endRunAfterBlock();
  t.equal(Atomics.load(words, 2), 1, 'the runtime sees the end asked');
  run.reset();
  t.same([...words], [0, 0, 0], 'the next run starts from nothing');
});
