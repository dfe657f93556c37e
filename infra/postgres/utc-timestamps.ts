/**
 * Entity `Date` columns are `timestamp without time zone`, as SubQuery makes them, holding UTC.
 * Both drivers would read such a value in the process's local time zone (SubQuery's node asks its
 * users to run with TZ=UTC for that reason); idx reads it as UTC whatever the zone, on PostgreSQL
 * and PGlite alike. Only entity columns have this type: idx's own time columns are timestamptz.
 */

import pg from 'pg';

/** PostgreSQL's type oid of `timestamp without time zone` */
export const TIMESTAMP_OID = 1114;

const TEXT = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?( BC)?$/;

/** `2024-05-01 12:00:00.123456` (PostgreSQL's output) → that instant in UTC; `infinity`s and nonsense → an invalid Date. */
export function parseUtcTimestamp(text: string): Date {
  const m = TEXT.exec(text);
  if (m === null) {
    // ISO 8601 without a zone (how to_jsonb writes a timestamp, in NOTIFY payloads) is UTC too
    return new Date(/^\d{4}-\d\d-\d\dT[\d:.]+$/.test(text) ? `${text}Z` : text);
  }
  const [, y, mo, d, h, mi, s, frac, bc] = m;
  const date = new Date(0);
  // year 1 BC is year 0 of the proleptic calendar Date counts in; setUTCFullYear, unlike Date.UTC, takes years 0–99 as they are
  date.setUTCFullYear(bc === undefined ? Number(y) : 1 - Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), Number((frac ?? '0').padEnd(3, '0').slice(0, 3)));
  return date;
}

/** `pg`'s type parsers with {@link parseUtcTimestamp} for `timestamp`, for a pool's `types` */
export const utcTimestampTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP_OID && format !== 'binary' ? parseUtcTimestamp : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};
