import { parseSchema } from '../../domain/entities/parse-schema.ts';
import type { StoredProject } from '../../infra/postgres/read-stored-project.ts';

/**
 * A project as idx-query reads it from the database, made from schema.graphql text without one:
 * in schema `app`, every table historical unless `historical` is false, none with `--changes-index`.
 */
export function storedProjectOf(schemaGraphql: string, { historical = true } = {}): StoredProject {
  const model = parseSchema(schemaGraphql);
  return {
    schema: 'app',
    model,
    historicalTables: new Set(historical ? model.entities.map((e) => e.table) : []),
    changesTables: new Set(),
    fingerprint: '',
  };
}
