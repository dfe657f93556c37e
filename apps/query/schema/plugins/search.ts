import { ConnectionSource, type ConnectionArgs } from '../../connection-source.ts';
import { parseBlockHeight } from '../../entity-rows.ts';
import { connectionArgs } from '../../graphql-type-names.ts';
import type { QueryContext } from '../../query-context.ts';
import type { FieldMap, SchemaExtension } from '../schema-extension.ts';

/** `search<Entities>(search: …)` for each `@fullText` entity: its connection over the matching rows, best first. */
export const search: SchemaExtension = {
  name: 'search',
  queryFields({ composer: sc }, t): FieldMap | undefined {
    const ft = t.entity.fullText;
    if (ft === undefined || sc.Query.hasField(t.names.search)) return undefined;
    const { orderBy, ...args } = connectionArgs(t);
    return {
      [t.names.search]: {
        type: t.names.connectionType,
        description: `${t.names.type} rows whose ${ft.fields.join(', ')} match the search (@fullText, ${ft.language}), best match first.`,
        args: {
          search: {
            type: 'String!',
            description: 'Words that must all occur; `or` between words, `-word` to exclude, `word*` for a prefix, `"two words"` for a phrase.',
          },
          ...args,
          orderBy: { type: orderBy.type, description: 'The order of the rows; by rank (best first) when not given.' },
          blockHeight: { type: 'String', description: 'Search the rows as of this block height, nested relations included.' },
        },
        resolve: (_src: unknown, args: ConnectionArgs & { search: string; blockHeight?: string | null }, ctx: QueryContext) => {
          const { blockHeight, search, ...rest } = args;
          return new ConnectionSource(ctx, t, rest, parseBlockHeight(t, blockHeight), undefined, { text: search });
        },
      },
    };
  },
};
