import type { WriteOp } from './isolate/wire.ts';

/**
 * The host's side of the writes a runtime ships while it runs (Bridge.send): applied in the order they were made,
 * while the runtime goes on. Batches are numbered as shipped; the runtime's awaited calls, and a run's outcome, say
 * how many it had shipped before them, and wait (`settled`) until that many are applied: nothing here assumes the
 * batches and the calls reach the host in the order they were made. After a batch fails, later ones are not
 * applied (they are the failed run's), and each wait rejects with its failure (a `WriteFailed` naming the block) once
 * its batches have come, until the next run begins (`nextRun`). One per isolate or context:
 * a dropped runtime's late batches reach only its own, and are not applied once it is closed.
 */
export function createShippedWrites(apply: (writes: readonly WriteOp[]) => Promise<void>) {
  const arrived = new Map<number, readonly WriteOp[]>();
  let queued = 0;
  let applied = 0;
  let failure: { error: unknown } | undefined;
  let closed = false;
  let chain: Promise<void> = Promise.resolve();
  let waiting: { count: number; resolve: () => void; reject: (err: unknown) => void }[] = [];
  const wake = () => {
    waiting = waiting.filter((w) => {
      if (applied < w.count) return true;
      if (failure !== undefined) w.reject(failure.error);
      else w.resolve();
      return false;
    });
  };
  return {
    /** batch `seq` has arrived: it is applied once every batch before it is */
    receive(seq: number, writes: readonly WriteOp[]): void {
      arrived.set(seq, writes);
      while (arrived.has(queued)) {
        const batch = arrived.get(queued)!;
        arrived.delete(queued);
        queued++;
        chain = chain.then(async () => {
          if (failure === undefined && !closed) {
            try {
              await apply(batch);
            } catch (error) {
              failure = { error };
            }
          }
          applied++;
          wake();
        });
      }
    },
    /**
     * No batch is applied from now on (the runtime is being dropped: a timeout, its memory limit); resolves once the
     * batch being applied is, so that what the host counts as received is whole.
     */
    close(): Promise<void> {
      closed = true;
      return chain;
    },
    /** resolves once the first `count` batches are applied; rejects, once they have come, with the failure of one */
    settled(count: number): Promise<void> {
      return new Promise((resolve, reject) => {
        waiting.push({ count, resolve, reject });
        wake();
      });
    },
    /** a run begins: every batch of the runs before has come (their outcomes waited for them), and a failure was theirs */
    nextRun(): void {
      failure = undefined;
    },
  };
}

export type ShippedWrites = ReturnType<typeof createShippedWrites>;
