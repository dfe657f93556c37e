import type { FullTextModel } from '../../domain/entities/entity-model.ts';
import { quoteIdent, quoteLiteral } from './sql.ts';

/**
 * The text-search document of an `@fullText` entity: its fields joined by a space, NULL as empty.
 * The GIN index is on this very expression (written without `alias`), so a query must spell it
 * the same way for PostgreSQL to use the index.
 */
export function fullTextDocument(ft: FullTextModel, alias?: string): string {
  const ref = (c: string) => (alias === undefined ? quoteIdent(c) : `${alias}.${quoteIdent(c)}`);
  const text = ft.columns.map((c) => `coalesce(${ref(c)}, '')`).join(` || ' ' || `);
  return `to_tsvector(${fullTextConfig(ft)}, ${text})`;
}

/** `'english'::regconfig`: a constant configuration keeps `to_tsvector` immutable, hence indexable */
export function fullTextConfig(ft: FullTextModel): string {
  return `${quoteLiteral(ft.language)}::regconfig`;
}
