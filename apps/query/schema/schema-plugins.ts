import { aggregates } from './plugins/aggregates.ts';
import { baseTypes } from './plugins/base-types.ts';
import { changes } from './plugins/changes.ts';
import { entityConnections } from './plugins/entity-connections.ts';
import { metadata } from './plugins/metadata.ts';
import { relayIds } from './plugins/relay-ids.ts';
import { search } from './plugins/search.ts';
import type { SchemaExtension } from './schema-extension.ts';

/** The SubQuery dialect's schema, plugin by plugin; the order is the order of its types and fields. */
export const SCHEMA_PLUGINS: readonly SchemaExtension[] = [baseTypes, relayIds, entityConnections, aggregates, search, changes, metadata];
