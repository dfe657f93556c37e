// `npm test`'s typecheck and eslint in one process over one TypeScript program per tsconfig (scripts/checks.mjs
// runs it): eslint's type-aware rules (no-floating-promises, no-misused-promises) would otherwise build and type
// the whole program again (`eslint .` alone: 25 CPU-s, most of it that). Reports as `tsc` and `eslint` do, and
// fails when either finds a problem. `npm run typecheck` and `npm run lint:code` still run each alone.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// what `npm run typecheck` checks: the sources and tests, and the mapping API types on their own
const CONFIGS = ['tsconfig.json', 'types/tsconfig.json'];

/** A program of a tsconfig, as `tsc -p` makes it. */
function programOf(config) {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, config), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => report([d]) });
  if (parsed === undefined) process.exit(1);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences });
}

const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
function report(diagnostics) {
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(format(diagnostics, host));
}

const programs = CONFIGS.map(programOf);
const diagnostics = programs.flatMap((p) => ts.getPreEmitDiagnostics(p));
report(diagnostics);

// the lint of eslint.config.js, its type information read from these programs instead of its projectService
const eslint = new ESLint({
  cwd: root,
  overrideConfig: { files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, programs } } },
});
const results = await eslint.lintFiles(['.']);
const lint = await (await eslint.loadFormatter('stylish')).format(results);
if (lint) process.stdout.write(lint);

const lintErrors = results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0);
process.stdout.write(`typecheck: ${diagnostics.length === 0 ? 'ok' : `${diagnostics.length} errors`}\n`);
process.stdout.write(`lint:code: ${lintErrors === 0 ? 'ok' : `${lintErrors} problems`}\n`);
process.exit(diagnostics.length === 0 && lintErrors === 0 ? 0 : 1);
