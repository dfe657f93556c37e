/** how long after a rollback for the node later transactions get the short limit */
const STRICT_AFTER_OVERTIME_MS = 10_000;

/** When a socket client's open transaction must give the embedded database's one session back to the node. */
export interface TransactionYield {
  /** the transaction begun at `txSince` has had its time and the node waits for the session */
  overtime(txSince: number | undefined, now?: number): boolean;
  /** a transaction was rolled back for the node */
  rolledBack(now?: number): void;
}

/**
 * `maxTransactionMs` while the node waits; once a client's transaction had to be rolled back for the
 * node, those that follow in the next seconds get a fifth of it (at most 0.2 s): a client back at once
 * after each rollback (or several in turn) would otherwise hold every one of a flush's queries for the
 * whole limit (socket-attack bench: 5-7 s pauses against a 1 s limit).
 */
export function createTransactionYield(maxTransactionMs: number, waiting: () => number): TransactionYield {
  const strictMs = Math.min(200, maxTransactionMs);
  let lastRollback = -Infinity;
  return {
    overtime(txSince, now = Date.now()) {
      if (txSince === undefined || waiting() === 0) return false;
      return now - txSince >= (now - lastRollback < STRICT_AFTER_OVERTIME_MS ? strictMs : maxTransactionMs);
    },
    rolledBack(now = Date.now()) {
      lastRollback = now;
    },
  };
}
