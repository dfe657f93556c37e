// Lint: only what types can tell and a formatter cannot. Formatting is prettier's (.prettierrc.json).
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

// The layers (docs/ARCHITECTURE.md, "Layers"): arrows point inward only, apps → infra → domain.
// Each restriction is a regex over what an import names (not where it resolves), so no folder
// inside domain/, infra/ or an app may be named infra, apps, devchain, test, bench, scripts or after an app.
const UP = '^(\\.\\./)+';
const APPS = ['cli', 'node', 'query', 'shard'];
const NOT_DOMAIN = {
  regex: `${UP}(infra|apps|devchain)/`,
  message: 'domain/ is pure logic and imports only domain/ (and pure npm packages): move what it needs into domain/.',
};
const NODE_BUILTINS = {
  regex: `^(node:)?(${builtinModules.filter((m) => !m.startsWith('_')).join('|')})(/|$)`,
  message: "domain/ is pure logic: Node's own modules (files, network, processes) are used from infra/.",
};
const NO_APPS = {
  regex: `${UP}apps/`,
  message: 'infra/ never imports apps/ (arrows point inward: apps → infra → domain): move what both need into infra/ or domain/.',
};
const otherApps = (app) => ({
  regex: `${UP}(apps/)?(${APPS.filter((a) => a !== app).join('|')})/`,
  message: 'apps never import each other: what two programs share belongs in infra/ or domain/.',
});
const NO_TOOLING = {
  regex: `${UP}(test|bench|scripts)/`,
  message: 'domain/, infra/ and apps/ never import test/, bench/ or scripts/ (their tests may import test/support/).',
};
const TESTS_NO_TOOLING = { ...NO_TOOLING, regex: `${UP}(test/(?!support/)|bench/|scripts/)` };

/**
 * The import rule for one folder, static imports and `import()` (value or type) alike: for its
 * sources, and for its tests beside them, which may also use test/support/ and Node's modules.
 */
function layer(folder, restrictions, sourcesOnly = []) {
  const rules = (list) => {
    // esquery reads a regex up to its first slash
    const selector = (node, field, { regex }) => `${node}[${field}=/${regex.replaceAll('/', '\\x2F')}/]`;
    return {
      'no-restricted-imports': ['error', { patterns: list.map(({ regex, message }) => ({ regex, message })) }],
      'no-restricted-syntax': [
        'error',
        ...list.flatMap((r) => [
          { selector: selector('ImportExpression', 'source.value', r), message: r.message },
          { selector: selector('TSImportType', 'argument.literal.value', r), message: r.message },
        ]),
      ],
    };
  };
  return [
    { files: [`${folder}/**/*.ts`], ignores: ['**/*.test.ts'], rules: rules([...restrictions, ...sourcesOnly, NO_TOOLING]) },
    { files: [`${folder}/**/*.test.ts`], rules: rules([...restrictions, TESTS_NO_TOOLING]) },
  ];
}

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'dist/**', '**/fixtures/**', 'examples/**', 'templates/**', 'apps/query/playground/**', '**/*.artifact.ts', 'bin/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // a promise nobody awaits loses its error (and, in the node, ordering); tap's t.test() is the exception
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  ...layer('domain', [NOT_DOMAIN], [NODE_BUILTINS]),
  ...layer('infra', [NO_APPS]),
  ...APPS.flatMap((app) => layer(`apps/${app}`, [otherApps(app)])),
);
