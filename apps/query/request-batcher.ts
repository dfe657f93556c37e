type Waiter = { resolve: (v: unknown) => void; reject: (e: unknown) => void };

interface Batch {
  waiters: Map<string, Waiter[]>;
  run: (keys: string[]) => Promise<Map<string, unknown>>;
}

/**
 * Gathers the loads of one GraphQL request that happen in the same tick (graphql-js resolves the
 * fields of every item of a list before awaiting any) and runs each kind once for all their keys:
 * the relations of a page of 100 rows are one statement, not 100.
 */
export class RequestBatcher {
  private pending = new Map<string, Batch>();
  private scheduled = false;

  /** `batchKey` names the statement; `key` is this caller's part of it (usually an id). */
  load<V>(batchKey: string, key: string, run: (keys: string[]) => Promise<Map<string, V>>): Promise<V | undefined> {
    let batch = this.pending.get(batchKey);
    if (batch === undefined) {
      batch = { waiters: new Map(), run: run as Batch['run'] };
      this.pending.set(batchKey, batch);
    }
    const list = batch.waiters.get(key) ?? [];
    batch.waiters.set(key, list);
    const promise = new Promise<V | undefined>((resolve, reject) => list.push({ resolve: resolve as Waiter['resolve'], reject }));
    if (!this.scheduled) {
      this.scheduled = true;
      // After the promise jobs already queued (DataLoader's scheduling): siblings resolved from
      // settled promises still join the batch.
      void Promise.resolve().then(() => process.nextTick(() => this.dispatch()));
    }
    return promise;
  }

  private dispatch(): void {
    this.scheduled = false;
    const batches = [...this.pending.values()];
    this.pending.clear();
    for (const batch of batches) {
      const keys = [...batch.waiters.keys()];
      batch.run(keys).then(
        (results) => {
          for (const [key, waiters] of batch.waiters) for (const w of waiters) w.resolve(results.get(key));
        },
        (err: unknown) => {
          for (const waiters of batch.waiters.values()) for (const w of waiters) w.reject(err);
        },
      );
    }
  }
}
