import pgTsquery from 'pg-tsquery';

const parser = new pgTsquery.Tsquery();

/**
 * A `search` argument as the tsquery text SubQuery's query service makes of it (its PgSearchPlugin
 * runs pg-tsquery): words are ANDed, `or`, `,` and `|` OR, `-` and `!` negate, `word*` is a
 * prefix, `"two words"` a phrase; stray operators are dropped rather than refused. Empty when
 * nothing is left, which matches no row.
 */
export function searchTsquery(search: string): string {
  return parser.parse(search)?.toString() ?? '';
}
