import { GraphQLError } from 'graphql';
import { textArray } from '../pg-arrays.ts';
import { visibleVersions } from '../visible-versions.ts';

/** What the version rule needs of a table: whether it keeps history (`__block_range`). */
export interface Versioned {
  historical: boolean;
}

/**
 * The parameters of one statement under construction. Every value the user sends goes in as a
 * parameter (text, cast in SQL); only quoted identifiers and fixed keywords are written into the text.
 */
export class SqlParams {
  readonly values: unknown[] = [];
  private aliases = 0;

  /** `$n::type` holding `value` (sent as text) */
  add(value: string | number | null, type: string): string {
    if (typeof value === 'string') refuseNul(value);
    this.values.push(value === null ? null : String(value));
    // bytea by way of text: PGlite would otherwise want a bytea parameter as bytes
    return `$${this.values.length}::${type === 'bytea' ? 'text::bytea' : type}`;
  }

  /** `$n::type[]` holding the list, sent as one array literal */
  addList(values: readonly (string | null)[], type: string): string {
    for (const v of values) if (v !== null) refuseNul(v);
    this.values.push(textArray(values));
    return `$${this.values.length}::text[]::${type}[]`;
  }

  /** a fresh table alias for a subquery */
  alias(): string {
    return `t${++this.aliases}`;
  }
}

/** A height given by the query, or one that varies by row: an int8 SQL expression over the outer row. */
export type Height = bigint | { sql: string };

/**
 * Which versions a query sees: the live ones (`upper_inf`), or those alive at `height`
 * (`__block_range @> height`); tables without history have one version per id.
 */
export function versionCondition(t: Versioned, alias: string, height: Height | undefined, params: SqlParams): string {
  return versionAt(t, alias, typeof height === 'bigint' ? { sql: params.add(height.toString(), 'int8') } : height);
}

/** {@link versionCondition} with the height as SQL already (an expression, a parameter or a literal). */
export function versionAt(t: Versioned, alias: string, height: { sql: string } | undefined): string {
  return visibleVersions(t.historical, alias, height?.sql);
}

/** `%`, `_` and `\` taken literally inside a LIKE pattern */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** PostgreSQL text cannot hold NUL: say so before the database does in its own words. */
function refuseNul(value: string): void {
  if (value.includes('\u0000')) {
    throw new GraphQLError('a string in the query contains the NUL character (\\u0000), which no stored value can hold', {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
}
