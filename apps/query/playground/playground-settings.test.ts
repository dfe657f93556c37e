import t from 'tap';
import { parsePlaygroundSettings } from './playground-settings.ts';

t.test('GraphQL Playground keys with a GraphiQL meaning are applied', async (t) => {
  t.strictSame(
    parsePlaygroundSettings({
      'editor.theme': 'light',
      'editor.fontSize': 16,
      'editor.fontFamily': "'Fira Code', monospace",
      'request.credentials': 'include',
      'request.globalHeaders': { authorization: 'Bearer x' },
      headers: { 'x-a': '1' },
      defaultQuery: '{ _metadata { chain } }',
      'editor.toolsVisibility': false,
    }),
    {
      settings: {
        theme: 'light',
        fontSize: 16,
        fontFamily: "'Fira Code', monospace",
        credentials: 'include',
        headers: { authorization: 'Bearer x', 'x-a': '1' },
        defaultQuery: '{ _metadata { chain } }',
        toolsVisibility: false,
      },
      ignored: [],
    },
  );
  t.strictSame(parsePlaygroundSettings(undefined), { settings: {}, ignored: [] });
});

t.test('Playground-only keys are reported as ignored; unknown keys and bad values are errors naming the flag', async (t) => {
  t.strictSame(parsePlaygroundSettings({ 'schema.polling.enable': false, 'tracing.hideTracingResponse': true }).ignored, [
    'schema.polling.enable',
    'tracing.hideTracingResponse',
  ]);
  t.throws(() => parsePlaygroundSettings({ 'editor.theme': 'blue' }), {
    code: 'BAD_ARGUMENT',
    message: /^--playground-settings: "editor.theme" must be "light" or "dark", got "blue"/,
  });
  t.throws(() => parsePlaygroundSettings({ headers: { a: 1 } }), { message: /"headers" must be an object of header names to string values/ });
  t.throws(() => parsePlaygroundSettings({ 'editor.fontFamily': 'x; } body { display: none' }), {
    message: /"editor.fontFamily" must be a CSS font-family list/,
  });
  t.throws(() => parsePlaygroundSettings({ colour: 'red', 'editor.fontSize': 'big' }), {
    message: /unknown setting "colour"; "editor.fontSize" must be a number of pixels.*Known settings: editor.theme/,
  });
});
