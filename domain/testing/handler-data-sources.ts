import { IdxError } from '../errors.ts';
import type { DataSource } from '../project/project-model.ts';

/**
 * The manifest's data sources that name `handler`, each whole: what a `subqlTest` runs on its block.
 * SubQuery's testing service (node-core 19) runs every handler of such a data source, not only the
 * named one, so a test passes or fails there as the data source's other handlers make it; idx does
 * the same. Templates are not searched, as there. None is an error naming the handler.
 */
export function handlerDataSources(dataSources: readonly DataSource[], handler: string): DataSource[] {
  const out = dataSources.filter((ds) => ds.mapping.handlers.some((h) => h.handler === handler));
  if (out.length === 0) {
    throw new IdxError('TEST_HANDLER_NOT_FOUND', `Unable to find any datasources that match handler "${handler}". Please check your project manifest.`);
  }
  return out;
}
