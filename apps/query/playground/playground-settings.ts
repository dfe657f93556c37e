import { IdxError } from '../../../domain/errors.ts';

/**
 * `--playground-settings`: SubQuery's query service took GraphQL Playground settings; idx serves
 * GraphiQL, so the Playground keys that have a GraphiQL meaning are honoured, a few GraphiQL ones
 * are added, and the rest are reported as ignored (never silently).
 */
export interface PlaygroundSettings {
  /** `editor.theme`: GraphiQL's theme in a browser that has not chosen one */
  theme?: 'light' | 'dark';
  /** `editor.fontSize`, pixels, for the editors */
  fontSize?: number;
  /** `editor.fontFamily`, for the editors */
  fontFamily?: string;
  /** `request.credentials`: whether the browser sends cookies with each request */
  credentials?: 'omit' | 'include' | 'same-origin';
  /** `headers` (or Playground's `request.globalHeaders`): sent with every query, and as the subscription's connection parameters */
  headers?: Record<string, string>;
  /** `defaultQuery`: the query the editor opens with (else a sample page of the first entity) */
  defaultQuery?: string;
  /** `editor.toolsVisibility` (`variables` | `headers` | false): which lower pane is open */
  toolsVisibility?: 'variables' | 'headers' | false;
}

/** Playground keys with no meaning in GraphiQL: accepted, reported in the log. */
const IGNORED = new Set([
  'editor.cursorShape',
  'editor.reuseHeaders',
  'general.betaUpdates',
  'prettier.printWidth',
  'prettier.tabWidth',
  'prettier.useTabs',
  'request.globalHeaders.persist',
  'schema.disableComments',
  'schema.polling.enable',
  'schema.polling.endpointFilter',
  'schema.polling.interval',
  'tracing.hideTracingResponse',
  'tracing.tracingSupported',
  'queryPlan.hideQueryPlanResponse',
]);

export interface ParsedPlaygroundSettings {
  settings: PlaygroundSettings;
  /** keys accepted but without effect, to report */
  ignored: string[];
}

/** Validates the parsed JSON of `--playground-settings`; a wrong key or value is an error naming the flag. */
export function parsePlaygroundSettings(raw: Readonly<Record<string, unknown>> | undefined): ParsedPlaygroundSettings {
  const settings: PlaygroundSettings = {};
  const ignored: string[] = [];
  const problems: string[] = [];
  const expect = (key: string, what: string) => problems.push(`"${key}" must be ${what}, got ${JSON.stringify(raw![key])}`);
  for (const [key, value] of Object.entries(raw ?? {})) {
    switch (key) {
      case 'editor.theme':
        if (value === 'light' || value === 'dark') settings.theme = value;
        else expect(key, '"light" or "dark"');
        break;
      case 'editor.fontSize':
        if (typeof value === 'number' && value >= 6 && value <= 72) settings.fontSize = value;
        else expect(key, 'a number of pixels from 6 to 72');
        break;
      case 'editor.fontFamily':
        if (typeof value === 'string' && value.trim() !== '' && !/[;{}<>]/.test(value)) settings.fontFamily = value;
        else expect(key, 'a CSS font-family list');
        break;
      case 'request.credentials':
        if (value === 'omit' || value === 'include' || value === 'same-origin') settings.credentials = value;
        else expect(key, '"omit", "include" or "same-origin"');
        break;
      case 'headers':
      case 'request.globalHeaders':
        if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')) {
          settings.headers = { ...settings.headers, ...(value as Record<string, string>) };
        } else expect(key, 'an object of header names to string values');
        break;
      case 'defaultQuery':
        if (typeof value === 'string') settings.defaultQuery = value;
        else expect(key, 'a GraphQL query string');
        break;
      case 'editor.toolsVisibility':
        if (value === 'variables' || value === 'headers' || value === false) settings.toolsVisibility = value;
        else expect(key, '"variables", "headers" or false');
        break;
      default:
        if (IGNORED.has(key)) ignored.push(key);
        else problems.push(`unknown setting "${key}"`);
    }
  }
  if (problems.length > 0) {
    throw new IdxError(
      'BAD_ARGUMENT',
      `--playground-settings: ${problems.join('; ')}. Known settings: editor.theme, editor.fontSize, editor.fontFamily, editor.toolsVisibility, request.credentials, headers (or request.globalHeaders), defaultQuery`,
    );
  }
  return { settings, ignored };
}
