import { GraphQLJSON } from 'graphql-compose';
import { GraphQLBigFloat, GraphQLBigIntString, GraphQLCursor, GraphQLDatetime } from '../../scalars.ts';
import type { SchemaExtension } from '../schema-extension.ts';

/** The scalars, `NullOrder`, `PageInfo` and the model's enums: what the entities' types refer to. */
export const baseTypes: SchemaExtension = {
  name: 'base types',
  prepare({ composer: sc, project }) {
    for (const scalar of [GraphQLBigFloat, GraphQLBigIntString, GraphQLDatetime, GraphQLCursor]) sc.add(scalar);
    sc.add(GraphQLJSON);
    sc.createEnumTC({ name: 'NullOrder', values: { NULLS_FIRST: {}, NULLS_LAST: {} } });
    sc.createObjectTC({
      name: 'PageInfo',
      fields: { hasNextPage: 'Boolean!', hasPreviousPage: 'Boolean!', startCursor: 'Cursor', endCursor: 'Cursor' },
    });
    for (const e of project.model.enums) sc.createEnumTC({ name: e.name, values: Object.fromEntries(e.values.map((v) => [v, { value: v }])) });
  },
};
