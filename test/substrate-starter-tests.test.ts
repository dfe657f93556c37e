import { createServer, type Server } from 'node:net';
import { relative } from 'node:path';
import t from 'tap';
import { exitWhenDone } from './support/exit-when-done.ts';
import { runIdxNodeTest, type IdxNodeTestRun } from './support/idx-node-test.ts';
import { REPO } from './support/idx-programs.ts';
import { envFor, PROGRAM_BACKEND } from './support/node-backends.ts';
import { placeRecording, RECORDED_STARTERS, starterRecording, type RecordedStarter } from './support/starter-recordings.ts';
import { SUBSTRATE_FIXTURES } from './support/substrate-fixtures.ts';
import { prepareFixture } from './support/substrate-projects.ts';

/**
 * SubQuery starters' own mapping tests (src/test/mappingHandlers.test.ts, unchanged), replayed with no
 * chain: each starter copied and built as `npm run test:subql-compare` does, pointed at the local
 * chain's chainId but at an endpoint that answers nothing, with the recording that script's
 * `--record-fixtures` made (test/fixtures/substrate-starter-recordings), then run by `idx-node test`.
 * Each must end as it ended on SubQuery's node (EXPECTED).
 */
exitWhenDone();

/** What SubQuery's node did with each starter's test on the same chain (`npm run test:subql-compare -- --record-fixtures`). */
interface SubqlResult {
  passes: boolean;
  /** its totals line when it printed one (it stops without a summary on a runtime error) */
  passing?: string;
  /** the words of its failure, which idx's output must hold too */
  says?: string;
}

// @subql/node 6.4.6 `test`, on chopsticks built to block 192 (tests of block 191)
const EXPECTED: Record<RecordedStarter, SubqlResult> = {
  'statemine-starter': { passes: true, passing: '1/1' },
  'acala-starter': { passes: true, passing: '1/1' },
  'avail-starter': { passes: true, passing: '1/1' },
  'polkadot-starter': { passes: false, says: 'Signer is missing' },
  'humanode-starter': { passes: false, says: 'Unable to find any datasources that match handler "handleEvent"' },
};

/**
 * An endpoint that counts the connections made to it and drops each: a replayed run must make none.
 * (Its URL is the manifest's endpoint and `--network-endpoint`.)
 */
async function trapEndpoint(): Promise<{ url: string; connections: () => number }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `ws://127.0.0.1:${(server.address() as { port: number }).port}`, connections: () => count };
}

/**
 * Copies and builds the starter (in this process), places its recording, then runs `idx-node test`
 * on it; with the seconds each step took.
 */
async function replay(starter: RecordedStarter, endpoint: string): Promise<IdxNodeTestRun & { seconds: string }> {
  const fixture = SUBSTRATE_FIXTURES.find((f) => f.name === starter)!;
  const started = performance.now();
  const { dir, manifest } = await prepareFixture(t, fixture, endpoint);
  await placeRecording(starter, dir);
  const built = performance.now();
  const run = await runIdxNodeTest(manifest, endpoint, envFor(PROGRAM_BACKEND));
  const s = (from: number, to: number) => ((to - from) / 1000).toFixed(1);
  return { ...run, seconds: `build ${s(started, built)} s, idx-node test ${s(built, performance.now())} s` };
}

// every starter built and run at once: the builds wait on files and swc, the runs on their own process
const runs = new Map(
  await Promise.all(
    RECORDED_STARTERS.map(async (starter) => {
      const trap = await trapEndpoint();
      const run = replay(starter, trap.url).then((r) => ({ ...r, connections: trap.connections() }));
      run.catch(() => {}); // its test reads the failure
      return [starter, run] as const;
    }),
  ),
);

for (const starter of RECORDED_STARTERS) {
  const expected = EXPECTED[starter];
  const ends = expected.passes ? 'passes' : `fails with ${expected.says}`;
  t.test(`${starter}: its own test, replayed from its recording with no chain, ${ends} as on SubQuery's node`, async (t) => {
    const { code, output, lines, connections, seconds } = await runs.get(starter)!;
    t.comment(seconds);
    const shown = relative(REPO, starterRecording(starter));
    t.ok(lines.includes('Replaying the chain from src/test/__recordings__/mappingHandlers.json'), `replays ${shown}`, { output });
    t.equal(connections, 0, 'no endpoint was asked', { output });
    t.equal(
      code === 0 ? 'passes' : 'fails',
      expected.passes ? 'passes' : 'fails',
      `the test ${expected.passes ? 'passes' : 'fails'} as on SubQuery's node (exit ${code})`,
      { output },
    );
    const totals = totalsOf(lines);
    if (expected.passing !== undefined) t.equal(totals, expected.passing, `${expected.passing} passing, as SubQuery's node counted`, { output });
    else t.equal(totals, '0/1', 'idx counts the failed test (SubQuery stops on it without a summary)', { output });
    const says = expected.says;
    if (says !== undefined)
      t.ok(
        lines.some((l) => l.includes(says)),
        `the failure says "${says}", as SubQuery's did`,
        { output },
      );
    t.notOk(
      lines.some((l) => l.includes('Recording Error')),
      'the recording holds every call the test makes (else re-record it: npm run test:subql-compare -- --record-fixtures)',
      { output },
    );
  });
}

/** `passing/total` from idx's summary lines, or undefined when it printed none. */
function totalsOf(lines: readonly string[]): string | undefined {
  const count = (what: string) => lines.find((l) => l.startsWith(`${what} tests: `))?.slice(what.length + 8);
  const [total, passing] = [count('Total'), count('Passing')];
  return total === undefined ? undefined : `${passing}/${total}`;
}
