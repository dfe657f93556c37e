import type { RouterContext } from '@koa/router';
import type { GraphQLSchema } from 'graphql';
import type { BuiltSchema } from '../build-schema.ts';
import { graphqlHandler } from '../create-query-server.ts';
import { DocumentCache, executeRequest, type GraphqlRequest, type GraphqlResponse } from '../execute-request.ts';
import type { QueryFeature } from '../run-query.ts';
import { buildSubgraphSchema } from './build-subgraph-schema.ts';
import { createSubgraphContext } from './subgraph-context.ts';

export interface SubgraphFeatureOptions {
  /** `--query-complexity`, the same bound as the SubQuery dialect's */
  queryComplexity: number;
}

/** graph-node's path of a subgraph by name, and idx's short one; `/` and `/graphql` keep the SubQuery dialect. */
export const SUBGRAPH_PATHS = { named: '/subgraphs/name/*name', short: '/subgraph' } as const;

/**
 * `idx-query --subgraph`: The Graph's query dialect (graph-node's) over the same tables, at
 * `/subgraphs/name/<-n>` and `/subgraph`. Requests go through the same pipeline as the SubQuery
 * dialect's (request limits, complexity, timeout, error shapes); only the schema differs. It is
 * built from the model the service currently serves, once per model, so a hot reload of the
 * SubQuery schema brings a new one here too.
 */
export function subgraphFeature(options: SubgraphFeatureOptions): QueryFeature {
  return {
    flag: '--subgraph',
    name: 'subgraph',
    attach({ router, service, logger }) {
      const log = logger.child('subgraph');
      const schemas = new WeakMap<BuiltSchema, GraphQLSchema>();
      const schemaOf = (built: BuiltSchema) => {
        let schema = schemas.get(built);
        if (schema === undefined) schemas.set(built, (schema = buildSubgraphSchema({ project: built.project, tables: built.tables })));
        return schema;
      };
      // built now so that a model graph-node's shape cannot hold stops the start, naming the clash
      schemaOf(service.current());
      const cache = new DocumentCache();
      const deployment = service.schemaName;

      const execute = async (request: GraphqlRequest): Promise<GraphqlResponse> => {
        // the schema and the context of the same model: both are read before anything awaits
        const built = service.current();
        const base = service.createContext();
        let schema: GraphQLSchema;
        try {
          schema = schemaOf(built);
        } catch (err) {
          log.error(`the Graph dialect cannot serve the reloaded model: ${(err as Error).message}`);
          return { status: 500, body: { errors: [{ message: (err as Error).message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }] } };
        }
        const context = createSubgraphContext(base, deployment);
        return executeRequest(request, { schema, context, queryComplexity: options.queryComplexity, logger: log }, cache);
      };
      const handle = graphqlHandler(execute);
      const named = async (ctx: RouterContext) => {
        if (ctx.params.name === deployment) return handle(ctx);
        ctx.status = 404;
        ctx.body = {
          errors: [
            {
              message: `no subgraph named ${JSON.stringify(ctx.params.name)} here: this idx-query serves "${deployment}" at /subgraphs/name/${deployment} (its -n/--name)`,
              extensions: { code: 'PROJECT_NOT_FOUND' },
            },
          ],
        };
      };
      router.get(SUBGRAPH_PATHS.short, handle);
      router.post(SUBGRAPH_PATHS.short, handle);
      router.get(SUBGRAPH_PATHS.named, named);
      router.post(SUBGRAPH_PATHS.named, named);
      log.info(`The Graph's query dialect at /subgraphs/name/${deployment} and /subgraph`);
    },
  };
}
