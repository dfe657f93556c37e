import type { ChainHeads } from '../../../domain/blocks/chain-heads.ts';

/**
 * The chain's heads asked for at once, while the database and the sandbox are prepared, so the
 * indexer's first look costs no round trip of its own: behind a remote endpoint, one of the few
 * waits at start that nothing else overlaps. The first call of each is answered by that early
 * answer (when it is younger than `maxAgeMs` and did not fail); every later call asks the chain.
 */
export function withWarmHeads<S extends ChainHeads>(source: S, maxAgeMs = 10_000, now: () => number = Date.now): S {
  const askedAt = now();
  const early = (ask: () => Promise<number | null>) => {
    const answer = ask();
    answer.catch(() => undefined); // a failure is asked again by the first call
    let used = false;
    return async () => {
      if (used || now() - askedAt > maxAgeMs) return ask();
      used = true;
      return answer.catch(() => ask());
    };
  };
  const best = early(() => source.bestHeight());
  const finalized = early(() => source.finalizedHeight());
  return Object.assign(Object.create(source) as S, {
    bestHeight: best as () => Promise<number>,
    finalizedHeight: finalized,
  });
}
