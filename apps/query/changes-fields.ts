import type { SchemaComposer } from 'graphql-compose';
import { ChangesSource, type Change, type ChangesArgs } from './changes-source.ts';
import type { EntityTable } from './entity-tables.ts';
import type { QueryContext } from './query-context.ts';

/**
 * `<entity>Changes(fromHeight, toHeight, first, after, filter)` for every table the node keeps the
 * `--changes-index` indexes on (an index scan, never a table scan, answers each page): what
 * changed between two heights, as CREATE/UPDATE/DELETE with the versions before and after. A name
 * another entity already takes (an entity called `TransferChange`) is left to that entity.
 */
export function changesFields(sc: SchemaComposer<QueryContext>, tables: ReadonlyMap<string, EntityTable>): void {
  for (const t of tables.values()) {
    if (!t.changes) continue;
    const type = `${t.names.type}Change`;
    const field = `${t.names.single}Changes`;
    const connection = `${t.names.type}ChangesConnection`;
    const edge = `${t.names.type}ChangesEdge`;
    if ([type, connection, edge].some((n) => sc.has(n)) || sc.Query.hasField(field)) continue;
    if (!sc.has('ChangeMutation')) {
      sc.createEnumTC({
        name: 'ChangeMutation',
        description: 'What a change did to an entity at its height.',
        values: {
          CREATE: { description: 'a version began with no version before it' },
          UPDATE: { description: 'a version ended and the next began' },
          DELETE: { description: 'a version ended with none after it' },
        },
      });
    }
    sc.createObjectTC<Change>({
      name: type,
      description: `A change of a ${t.names.type} at one block height.`,
      fields: {
        id: { type: 'String!', description: `The ${t.names.type}'s id.` },
        height: { type: 'Int!', description: 'The block height of the change.' },
        mutation: { type: 'ChangeMutation!' },
        before: { type: t.names.type, description: 'The version before the change (null for CREATE), as of height − 1.' },
        after: { type: t.names.type, description: 'The version after the change (null for DELETE), as of height.' },
      },
    });
    sc.createObjectTC({ name: edge, fields: { cursor: 'Cursor', node: { type: type } } });
    sc.createObjectTC<ChangesSource>({
      name: connection,
      description: `Changes of ${t.names.type} rows, in height then id order.`,
      fields: {
        nodes: { type: `[${type}!]!`, resolve: (src) => src.page().then((p) => p.changes) },
        edges: { type: `[${edge}!]!`, resolve: (src) => src.page().then((p) => p.changes.map((node) => ({ cursor: src.cursor(node), node }))) },
        pageInfo: {
          type: 'PageInfo!',
          resolve: (src) =>
            src.page().then((p) => ({
              hasNextPage: p.hasNextPage,
              hasPreviousPage: src.args.after != null,
              startCursor: p.changes.length > 0 ? src.cursor(p.changes[0]!) : null,
              endCursor: p.changes.length > 0 ? src.cursor(p.changes[p.changes.length - 1]!) : null,
            })),
        },
        totalCount: { type: 'Int!', description: 'The number of changes in the window (the filter applied).', resolve: (src) => src.totalCount() },
        fromHeight: { type: 'Int!', resolve: (src) => src.heights().then((h) => h.from) },
        toHeight: {
          type: 'Int!',
          description:
            'The end of the window answered (exclusive): the toHeight asked, or less when the blocks past it are not indexed or not final yet. Poll on from here.',
          resolve: (src) => src.heights().then((h) => h.to),
        },
      },
    });
    sc.Query.addFields({
      [field]: {
        type: `${connection}!`,
        description: `${t.names.type} versions begun or ended in [fromHeight, toHeight): CREATE, UPDATE and DELETE in height order.`,
        args: {
          fromHeight: { type: 'Int!', description: 'The first height of the window.' },
          toHeight: { type: 'Int', description: 'The end of the window (exclusive); by default, and at most, just past the last final indexed block.' },
          first: { type: 'Int', description: 'Only read the first n changes (at most --query-limit).' },
          after: { type: 'Cursor', description: 'Read changes after this cursor.' },
          filter: { type: t.names.filter, description: 'Only changes whose version before or after matches.' },
        },
        resolve: (_src: unknown, args: ChangesArgs, ctx: QueryContext) => new ChangesSource(ctx, t, args),
      },
    });
  }
}
