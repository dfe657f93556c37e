import type { StoreCache } from '../../../domain/entities/store-cache.ts';
import type { MappingHost } from '../../../domain/mapping/mapping-host.ts';

/** The mappings' `store`, over the cache; writes are stamped with the height of the block running. */
export function mappingStoreOf(cache: StoreCache, currentHeight: () => number): MappingHost['store'] {
  return {
    get: (entity, id) => cache.get(entity, id),
    getByField: (entity, field, value, options) => cache.getByField(entity, field, value, options),
    getByFields: (entity, filters, options) => cache.getByFields(entity, filters, options),
    getOneByField: (entity, field, value) => cache.getOneByField(entity, field, value),
    set: async (entity, id, data) => cache.set(entity, id, data, currentHeight()),
    bulkCreate: async (entity, records) => cache.bulkCreate(entity, records, currentHeight()),
    bulkUpdate: (entity, records, fields) => cache.bulkUpdate(entity, records, currentHeight(), fields),
    remove: async (entity, id) => cache.remove(entity, id, currentHeight()),
    bulkRemove: async (entity, ids) => cache.bulkRemove(entity, ids, currentHeight()),
  };
}
