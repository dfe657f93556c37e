import { seededRandom } from '../../devchain/seeded-random.ts';
import { spawnWatchedNode } from './erc20-project.ts';

export interface KillCycleOptions {
  dir: string;
  env: Record<string, string | undefined>;
  /** idx-node's arguments besides `-f` and `-p` */
  args: readonly string[];
  /** the run is over once this height is committed */
  target: number;
  seed: number;
  /** SIGKILLs to deal before letting the node finish */
  kills: number;
  /** a kill lands this many ms after the process starts, drawn uniformly: start-up, indexing and flushes alike */
  killWindowMs: readonly [number, number];
  /** error exits (not kills) tolerated before giving up; each is reported */
  maxErrorExits?: number;
}

export interface KillCycleResult {
  kills: number;
  runs: number;
  /** runs that ended with an error of their own, with the end of their output */
  errorExits: { code: number | null; output: string }[];
  /** the output of the last run */
  output: string;
}

/**
 * Runs `idx-node` as a user does, SIGKILLs it at seeded random moments and starts it again, until
 * `kills` kills are dealt and then a run reaches `target`, which is stopped with SIGTERM.
 */
export async function runWithKills(options: KillCycleOptions): Promise<KillCycleResult> {
  const random = seededRandom(options.seed);
  const [lo, hi] = options.killWindowMs;
  const result: KillCycleResult = { kills: 0, runs: 0, errorExits: [], output: '' };
  for (;;) {
    const killAfter = result.kills < options.kills ? lo + random() * (hi - lo) : undefined;
    const run = await runOnce(options, killAfter);
    result.runs++;
    result.output = run.output;
    if (run.reachedTarget) return result;
    if (run.signal === 'SIGKILL') {
      result.kills++;
      continue;
    }
    result.errorExits.push({ code: run.code, output: run.output.slice(-2000) });
    if (result.errorExits.length > (options.maxErrorExits ?? 0)) {
      throw new Error(`idx-node exited with ${run.code} (not killed) ${result.errorExits.length} times; last output:\n${run.output.slice(-3000)}`);
    }
  }
}

async function runOnce(options: KillCycleOptions, killAfter: number | undefined) {
  let reachedTarget = false;
  const node = spawnWatchedNode(
    options.dir,
    options.env,
    options.args,
    (height) => {
      if (reachedTarget || height < options.target) return;
      reachedTarget = true;
      node.child.kill('SIGTERM');
    },
    25,
  );
  const killer = killAfter === undefined ? undefined : setTimeout(() => !reachedTarget && node.child.kill('SIGKILL'), killAfter);
  const { code, signal } = await node.exited;
  clearTimeout(killer);
  return { code, signal, output: node.output(), reachedTarget: reachedTarget && signal !== 'SIGKILL' };
}
