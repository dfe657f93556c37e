/**
 * When to look for the next block once indexing has caught up with the chain.
 *
 * A fixed interval makes a new block wait half of it on average before it is seen (500 ms at the
 * usual 1 s), whatever the chain's pace. Instead this learns the chain's block time from the heads
 * it sees (the median of the last intervals), sleeps until shortly before the next block is due,
 * then looks often until it arrives: on a chain with 1 s blocks a block is seen within ~50 ms of
 * its arrival with about five looks per block, and a 12 s chain is looked at less often than
 * every `maxMs`. A block that is late (irregular chains, a dev chain that mines on demand) is looked
 * for less and less often, back to every `maxMs`.
 */
export interface HeadPollSettings {
  /** the wait between two looks while the pace is not known yet or a block is overdue, ms */
  maxMs: number;
}

/** the longest sleep until a block is due (a guard against a wrong estimate), ms */
const SLEEP_MAX = 30_000;
/** intervals the pace is learnt from */
const WINDOW = 9;
/** looks while a block is due: a twentieth of the block time, within these bounds (ms) */
const FAST_MIN = 25;
const FAST_MAX = 250;
/** how early to start looking often: a share of the block time, within bounds (ms) */
const LEAD_SHARE = 0.2;
const LEAD_MIN = 100;
const LEAD_MAX = 2000;

export interface HeadPoll {
  /** the best height, as seen at `now` (ms) */
  seen(height: number, now: number): void;
  /** ms to wait, from `now`, before looking again */
  delay(now: number): number;
  /** the chain's block time as learnt so far, ms (undefined until three intervals are seen) */
  blockTimeMs(): number | undefined;
}

export function createHeadPoll({ maxMs }: HeadPollSettings): HeadPoll {
  const intervals: number[] = [];
  let lastHeight: number | undefined;
  let lastAt = 0;
  let overdueLooks = 0;

  function blockTimeMs(): number | undefined {
    if (intervals.length < 3) return undefined;
    const sorted = [...intervals].sort((a, b) => a - b);
    return sorted[sorted.length >> 1]!;
  }

  return {
    seen(height, now) {
      if (lastHeight !== undefined && height <= lastHeight) return;
      if (lastHeight !== undefined) {
        // Several blocks seen at once share the time since the last one.
        intervals.push((now - lastAt) / (height - lastHeight));
        if (intervals.length > WINDOW) intervals.shift();
      }
      lastHeight = height;
      lastAt = now;
      overdueLooks = 0;
    },

    delay(now) {
      const pace = blockTimeMs();
      if (pace === undefined) return maxMs;
      const fast = clamp(pace / 20, FAST_MIN, FAST_MAX);
      const due = lastAt + pace;
      const lookFrom = due - clamp(pace * LEAD_SHARE, LEAD_MIN, LEAD_MAX);
      if (now < lookFrom) return Math.min(lookFrom - now, SLEEP_MAX);
      if (now < due + pace / 2) return fast;
      // Overdue by half a block time: back off, doubling up to maxMs.
      overdueLooks++;
      return Math.min(maxMs, fast * 2 ** Math.min(overdueLooks, 10));
    },

    blockTimeMs,
  };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
