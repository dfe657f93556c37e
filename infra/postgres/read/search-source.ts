import { FULL_TEXT_COLUMN, type FullTextModel } from '../../../domain/entities/entity-model.ts';
import { fullTextConfig } from '../full-text.ts';
import { quoteIdent } from '../sql.ts';
import type { SqlParams } from './sql-params.ts';

/**
 * A full-text search's rows: the versions of `table` whose `@fullText` document matches the tsquery
 * text, with their rank as `__rank` (PostgreSQL flattens the subquery, so the GIN index answers it).
 */
export function searchSource(table: string, ft: FullTextModel, tsquery: string, params: SqlParams): string {
  const query = `to_tsquery(${fullTextConfig(ft)}, ${params.add(tsquery, 'text')})`;
  const doc = `s.${quoteIdent(FULL_TEXT_COLUMN)}`;
  return `(select s.*, ts_rank(${doc}, ${query}) as __rank from ${table} s where ${doc} @@ ${query})`;
}
