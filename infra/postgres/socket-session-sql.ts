import { readerRefusal } from './reader-sql.ts';
import { simpleQuery } from './pg-wire.ts';

/**
 * What the embedded database's socket runs around a client's own statements, and what it reads
 * from them: the client's settings, LISTEN and UNLISTEN, a read-only login's guards.
 */

/** Makes the transactions a reader starts read-only again, whatever it set before. */
export const READ_ONLY_AGAIN = simpleQuery(
  `select set_config('default_transaction_read_only', 'on', false), set_config('standard_conforming_strings', 'on', false)`,
);
// and gives the session back its defaults at once, in the transaction if there is one (a rollback then restores READ_ONLY_AGAIN's)
export const TRANSACTION_READ_ONLY = simpleQuery(
  `select current_setting('transaction_read_only'); reset default_transaction_read_only; reset standard_conforming_strings`,
);

// Startup parameters that are not settings.
const NOT_SETTINGS = new Set(['user', 'database', 'options', 'replication', 'client_encoding', 'application_name', 'fallback_application_name']);

/** `set_config` for the client's startup settings, including `-c name=value` in `options`. */
export function settingsSql(params: Map<string, string>): string {
  const settings: [string, string][] = [];
  for (const [k, v] of params) if (!NOT_SETTINGS.has(k)) settings.push([k, v]);
  const opts = params.get('options') ?? '';
  for (const m of opts.matchAll(/(?:-c\s*|--)([A-Za-z_.]+)=(\S+)/g)) settings.push([m[1]!.replace(/-/g, '_'), m[2]!]);
  if (settings.length === 0) return '';
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  return `select ${settings.map(([k, v]) => `set_config(${lit(k)}, ${lit(v)}, false)`).join(', ')}`;
}

export interface ListenCommand {
  kind: 'listen' | 'unlisten';
  /** undefined for `UNLISTEN *` */
  channel?: string;
}

/** A simple query that is exactly one LISTEN or UNLISTEN, with the channel as PostgreSQL reads it. */
export function parseListen(sql: string): ListenCommand | undefined {
  const m = /^\s*(listen|unlisten)\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*|\*)\s*;?\s*$/i.exec(sql);
  if (m === null) return undefined;
  const kind = m[1]!.toLowerCase() as ListenCommand['kind'];
  const name = m[2]!;
  if (name === '*') return kind === 'unlisten' ? { kind } : undefined;
  const channel = name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name.toLowerCase();
  return { kind, channel };
}

/** Why a reader's unit of messages (ending in `last`, with `executes` Executes) may not run, or undefined. */
export function readerUnitRefusal(unit: Buffer, last: 'S' | 'Q' | 'H' | 'F', executes: number): string | undefined {
  if (executes > 1) return 'one statement at a time: several Execute messages before a Sync';
  if (last === 'H' && executes > 0) return 'an Execute must be followed by a Sync';
  for (let at = 0; at + 5 <= unit.length;) {
    const type = String.fromCharCode(unit[at]!);
    const next = at + 1 + unit.readInt32BE(at + 1);
    if (type === 'F') return 'function calls by OID are not accepted';
    let sql: string | undefined;
    if (type === 'Q') sql = unit.toString('utf8', at + 5, next - 1);
    else if (type === 'P') {
      const nameEnd = unit.indexOf(0, at + 5);
      sql = unit.toString('utf8', nameEnd + 1, unit.indexOf(0, nameEnd + 1));
    }
    const refusal = sql === undefined ? undefined : readerRefusal(sql);
    if (refusal !== undefined) return `this login is read-only: ${refusal}`;
    at = next;
  }
  return undefined;
}
