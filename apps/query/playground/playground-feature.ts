import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { IdxError } from '../../../domain/errors.ts';
import type { BuiltSchema } from '../build-schema.ts';
import type { QueryFeature } from '../run-query.ts';
import { parsePlaygroundSettings, type PlaygroundSettings } from './playground-settings.ts';

export interface PlaygroundFeatureOptions {
  /** `--playground-settings`, parsed JSON */
  settings?: Readonly<Record<string, unknown>>;
  /** `--subscription`: the playground then runs subscriptions over graphql-ws on the same address */
  subscriptions: boolean;
  /** the indexer's status page (`idx-node --status-page`), linked from the playground when there is one */
  statusPage?: () => Promise<string | undefined>;
}

/** Where the playground's own files are served; GraphQL keeps `/` and `/graphql`. */
export const ASSET_PREFIX = '/_playground/';

/** The browser builds served, from the packages installed with idx: nothing comes from a CDN. */
const ASSETS: Record<string, { pkg: string; file: string; type: string }> = {
  'react.production.min.js': { pkg: 'react', file: 'umd/react.production.min.js', type: 'application/javascript' },
  'react-dom.production.min.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'application/javascript' },
  'graphiql.min.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'application/javascript' },
  'graphiql.min.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css' },
  'graphql-ws.min.js': { pkg: 'graphql-ws', file: 'umd/graphql-ws.min.js', type: 'application/javascript' },
};

/** The folder of an installed package: its entry point resolved, then up to its package.json. */
function packageDir(pkg: string): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(pkg));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === pkg) return dir;
    const up = dirname(dir);
    if (up === dir) throw new IdxError('PLAYGROUND_FILES_MISSING', `--playground: the package ${pkg} is not installed with idx; reinstall idx`);
    dir = up;
  }
}

/** Resolves every asset now, so a broken installation fails at start, not in the browser. */
function assetPaths(): Map<string, { path: string; type: string }> {
  const out = new Map<string, { path: string; type: string }>();
  for (const [name, a] of Object.entries(ASSETS)) {
    const path = join(packageDir(a.pkg), a.file);
    if (!existsSync(path)) throw new IdxError('PLAYGROUND_FILES_MISSING', `--playground: ${path} is missing; reinstall idx`);
    out.set(name, { path, type: a.type });
  }
  return out;
}

/**
 * `idx-query --playground`: GraphiQL at `/` for browsers (a GET that accepts HTML and carries no
 * `query`), with `--playground-settings` applied; GraphQL requests to `/` are untouched.
 */
export function playgroundFeature(options: PlaygroundFeatureOptions): QueryFeature {
  const { settings, ignored } = parsePlaygroundSettings(options.settings);
  return {
    flag: '--playground',
    name: 'playground',
    attach({ app, service, logger }) {
      const log = logger.child('playground');
      if (ignored.length > 0)
        log.warn(
          `--playground-settings: ${ignored.join(', ')} ${ignored.length === 1 ? 'has' : 'have'} no effect in GraphiQL and ${ignored.length === 1 ? 'is' : 'are'} ignored`,
        );
      const assets = assetPaths();
      const cache = new Map<string, Buffer>();
      app.use(async (ctx, next) => {
        if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
        if (ctx.path.startsWith(ASSET_PREFIX)) {
          const name = ctx.path.slice(ASSET_PREFIX.length);
          if (name === 'start.js') {
            ctx.type = 'application/javascript';
            ctx.body = START_SCRIPT;
            return;
          }
          const asset = assets.get(name);
          if (asset === undefined) return next();
          let body = cache.get(name);
          if (body === undefined) cache.set(name, (body = await readFile(asset.path)));
          ctx.type = asset.type;
          ctx.set('Cache-Control', 'public, max-age=3600');
          ctx.body = body;
          return;
        }
        if (ctx.path === '/' && ctx.query.query === undefined && ctx.accepts('json', 'html') === 'html') {
          ctx.type = 'text/html; charset=utf-8';
          const statusPage = await options.statusPage?.();
          ctx.body = page(service.schemaName, settings, options.subscriptions, service.current(), statusPage);
          return;
        }
        return next();
      });
      log.info('GraphiQL playground at / (from the installed graphiql, react and react-dom packages)');
    },
  };
}

/** The reference's "template entity" of SubQuery's starters: a placeholder a project's own entities come after. */
const TEMPLATE_ENTITY = 'StarterEntity';

/**
 * A first query for a new user: a page of the project's first entity with its first columns. The
 * starters' template entity (a row every few blocks) is passed over when the project has others.
 */
export function sampleQuery(schemaName: string, built: BuiltSchema, subscriptions: boolean): string {
  const tables = [...built.tables.values()];
  const first = tables.find((t) => t.entity.name !== TEMPLATE_ENTITY) ?? tables[0];
  const lines = [
    `# GraphQL over the data idx-node indexed into "${schemaName}". Run the query with the ▶ button (Ctrl-Enter);`,
    '# the Docs button lists every entity, filter and ordering.',
  ];
  if (first === undefined) return `${lines.join('\n')}\n{\n  _metadata {\n    lastProcessedHeight\n  }\n}\n`;
  const columns = first.columns
    .filter((c) => !c.list)
    .slice(0, 6)
    .map((c) => c.name);
  if (subscriptions) lines.push(`# Live changes: subscription { ${first.names.connection} { id mutation_type _entity { id } } }`);
  return `${lines.join('\n')}\n{\n  ${first.names.connection}(first: 10) {\n    totalCount\n    nodes {\n${columns.map((c) => `      ${c}\n`).join('')}    }\n  }\n}\n`;
}

function page(schemaName: string, settings: PlaygroundSettings, subscriptions: boolean, built: BuiltSchema, statusPage?: string): string {
  const config = { ...settings, subscriptions, defaultQuery: settings.defaultQuery ?? sampleQuery(schemaName, built, subscriptions) };
  // JSON inside <script>: no "</script>" or "<!--" can end it early
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  const editorCss = [
    settings.fontSize === undefined ? '' : `font-size: ${settings.fontSize}px;`,
    settings.fontFamily === undefined ? '' : `font-family: ${settings.fontFamily};`,
  ].join(' ');
  const title = `${schemaName} · idx GraphQL`.replace(/[<>&"]/g, '');
  // a thin bar above GraphiQL linking to the indexer's status page, when it serves one
  const bar =
    statusPage === undefined
      ? ''
      : `<div id="idx-bar"><a href="${statusPage.replace(/[<>&"]/g, encodeURIComponent)}" target="_blank" rel="noopener">indexer status ↗</a></div>\n`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSET_PREFIX}graphiql.min.css">
<style>html, body, #graphiql { height: 100%; margin: 0; }${bar === '' ? '' : BAR_CSS}${editorCss.trim() === '' ? '' : ` .graphiql-container .CodeMirror { ${editorCss} }`}</style>
</head>
<body>
${bar}<div id="graphiql">Loading the GraphQL playground…</div>
<script id="idx-playground-config" type="application/json">${json}</script>
<script src="${ASSET_PREFIX}react.production.min.js"></script>
<script src="${ASSET_PREFIX}react-dom.production.min.js"></script>
<script src="${ASSET_PREFIX}graphql-ws.min.js"></script>
<script src="${ASSET_PREFIX}graphiql.min.js"></script>
<script src="${ASSET_PREFIX}start.js"></script>
</body>
</html>
`;
}

const BAR_CSS =
  ' body { display: flex; flex-direction: column; } #graphiql { flex: 1; min-height: 0; height: auto; }' +
  ' #idx-bar { font: 12px system-ui, sans-serif; padding: 3px 10px; text-align: right; } #idx-bar a { color: inherit; }';

/** Runs in the browser: GraphiQL with the fetcher for this address, subscriptions over graphql-ws. */
const START_SCRIPT = `(function () {
  var config = JSON.parse(document.getElementById('idx-playground-config').textContent);
  var url = location.origin + '/';
  var headers = config.headers || {};
  var wsClient = config.subscriptions
    ? graphqlWs.createClient({ url: url.replace(/^http/, 'ws'), connectionParams: headers, lazy: true, retryAttempts: 3 })
    : undefined;
  var fetcher = GraphiQL.createFetcher({
    url: url,
    headers: headers,
    wsClient: wsClient,
    fetch: config.credentials
      ? function (input, init) { return fetch(input, Object.assign({}, init, { credentials: config.credentials })); }
      : undefined,
  });
  var props = { fetcher: fetcher, defaultQuery: config.defaultQuery };
  if (config.theme) props.defaultTheme = config.theme;
  if (config.toolsVisibility !== undefined) props.defaultEditorToolsVisibility = config.toolsVisibility;
  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, props));
})();
`;
