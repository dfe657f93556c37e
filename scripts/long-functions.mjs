// Lists the functions (declarations, methods, arrows, function expressions, accessors) in apps/, domain/ and
// infra/ longer than N lines, longest first: issue 29's limit is 150 lines, with none over 300. A function's
// length counts its first line to its last, inner functions included, so a factory's closures count toward it.
// Tests (*.test.ts) are not counted.
//   node scripts/long-functions.mjs [N=150]      (--json for the list as JSON)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['apps', 'domain', 'infra'];
// what a build or a user leaves there is not ours (the playground is a bundled third-party page)
const SKIP_DIRS = new Set(['node_modules', 'dist', 'fixtures', 'playground']);

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* sourceFiles(full);
    } else if (/\.(ts|mts|cts)$/.test(entry.name) && !/\.test\.[cm]?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      yield full;
    }
  }
}

/** The name a reader would search for: the declaration's own, else the variable, property or call it sits in. */
function nameOf(node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) return `<argument of ${parent.expression.getText(source).slice(0, 40)}>`;
  if (ts.isExportAssignment(parent)) return 'default';
  return '<anonymous>';
}

/** Every function in one file as { file, line, lines, name }. */
export function functionsIn(file, root = ROOT) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      found.push({ file: path.relative(root, file), line: start, lines: end - start + 1, name: nameOf(node, source) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The functions in apps/, domain/ and infra/ longer than `minLines` lines, longest first. */
export function longFunctions(minLines = 150, root = ROOT) {
  const all = FOLDERS.flatMap((folder) => [...sourceFiles(path.join(root, folder))].flatMap((f) => functionsIn(f, root)));
  return all.filter((f) => f.lines > minLines).sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const minLines = Number(args.find((a) => /^\d+$/.test(a)) ?? 150);
  const list = longFunctions(minLines);
  const text = args.includes('--json')
    ? `${JSON.stringify(list, null, 2)}\n`
    : `${list.map((f) => `${String(f.lines).padStart(5)}  ${f.file}:${f.line}  ${f.name}\n`).join('')}${list.length} function(s) over ${minLines} lines\n`;
  process.stdout.write(text);
}
