// Lists the functions (declarations, methods, arrows, function expressions, accessors) in apps/, domain/ and
// infra/ longer than N lines, longest first: issue 29's limit is 150 lines, with none over 300. A function's
// length counts its first line to its last, inner functions included, so a factory's closures count toward it.
// Tests (*.test.ts) are not counted.
//   node scripts/long-functions.mjs [N=150]      (--json for the list as JSON)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { FOLDERS, ROOT, sourceFiles } from './house-sources.mjs';

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
