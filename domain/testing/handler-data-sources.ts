import { IdxError } from '../errors.ts';
import type { DataSource } from '../project/project-model.ts';

/**
 * The manifest's data sources that name `handler`, each keeping that handler only: what a
 * `subqlTest` runs on its block (SubQuery's testing service does the same; templates are not
 * searched, as there). None is an error naming the handler.
 */
export function handlerDataSources(dataSources: readonly DataSource[], handler: string): DataSource[] {
  const out: DataSource[] = [];
  for (const ds of dataSources) {
    const own = ds.mapping.handlers.filter((h) => h.handler === handler);
    if (own.length > 0) out.push({ ...ds, mapping: { ...ds.mapping, handlers: own } });
  }
  if (out.length === 0) {
    throw new IdxError('TEST_HANDLER_NOT_FOUND', `Unable to find any datasources that match handler "${handler}". Please check your project manifest.`);
  }
  return out;
}
