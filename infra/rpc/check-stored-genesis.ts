import { IdxError } from '../../domain/errors.ts';

/** The genesis an earlier run stored against the one `endpoint` serves now; for a check made once the database is open. */
export function checkStoredGenesis(stored: string, served: string, endpoint: string): void {
  if (stored.toLowerCase() === served.toLowerCase()) return;
  throw new IdxError(
    'CHAIN_GENESIS_MISMATCH',
    `this database schema was indexed from a chain with genesis ${stored.toLowerCase()}, but ${endpoint} serves genesis ${served.toLowerCase()} (a restarted dev chain?): use another --db-schema, or force-clean to start over`,
  );
}
