import { seededRandom } from '../../devchain/seeded-random.ts';
import { spawnWatchedNode } from './watched-node.ts';

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
  /**
   * a kill lands this many ms after the process starts, drawn uniformly (the i-th kill in the i-th of
   * `kills` equal parts): start-up, indexing, flushes, or following the head once the target is
   * indexed (a run to be killed is not stopped at the target, so every kill is dealt however fast
   * the machine)
   */
  killWindowMs: readonly [number, number];
  /** error exits (not kills) tolerated before giving up; each is reported */
  maxErrorExits?: number;
}

export interface KillCycleResult {
  kills: number;
  /** the height each killed run had last reported (undefined: killed before reporting one) */
  killedAt: (number | undefined)[];
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
  const result: KillCycleResult = { kills: 0, killedAt: [], runs: 0, errorExits: [], output: '' };
  for (;;) {
    // the i-th kill lands in the i-th of `kills` equal parts of the window, so that they spread over it
    const part = (hi - lo) / options.kills;
    const killAfter = result.kills < options.kills ? lo + (result.kills + random()) * part : undefined;
    const run = await runOnce(options, killAfter);
    result.runs++;
    result.output = run.output;
    if (run.reachedTarget) return result;
    if (run.signal === 'SIGKILL') {
      result.kills++;
      result.killedAt.push(run.lastSeen);
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
  let lastSeen: number | undefined;
  const node = spawnWatchedNode(
    options.dir,
    options.env,
    options.args,
    (height) => {
      lastSeen = height;
      if (killAfter !== undefined || reachedTarget || height < options.target) return;
      reachedTarget = true;
      node.child.kill('SIGTERM');
    },
    25,
  );
  const killer = killAfter === undefined ? undefined : setTimeout(() => node.child.kill('SIGKILL'), killAfter);
  const { code, signal } = await node.exited;
  clearTimeout(killer);
  return { code, signal, lastSeen, output: node.output(), reachedTarget: reachedTarget && signal !== 'SIGKILL' };
}
