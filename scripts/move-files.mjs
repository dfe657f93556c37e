// Moves source files and rewrites every relative import of them (and their own imports) across the repository,
// then `git mv`s them, so a folder can be rearranged in one step. Paths in docs are rewritten too when written
// in full (`apps/node/run-node.ts`).
//   node scripts/move-files.mjs old/path.ts=new/path.ts [more pairs…] [--dry-run]
// A pair may name a test beside its source: `a.ts` moves `a.test.ts` with it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
// import/export … from '…', import('…'), import '…', require('…'), new URL('…', import.meta.url): any quoted relative path
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bnew URL\(\s*)(['"`])(\.{1,2}\/[^'"`\n]+)\2/g;

/** Every tracked file of the repository, relative to its root. */
function trackedFiles() {
  return execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** The moves asked for, each source with the test beside it. */
export function expandMoves(pairs, exists = (f) => existsSync(path.join(ROOT, f))) {
  const moves = new Map();
  for (const [from, to] of pairs) {
    moves.set(from, to);
    const test = (f) => f.replace(/\.ts$/, '.test.ts');
    if (from.endsWith('.ts') && !from.endsWith('.test.ts') && exists(test(from))) moves.set(test(from), test(to));
  }
  return moves;
}

/** One file's text with its relative imports pointing where the moved files now are. */
export function rewriteImports(text, file, newFile, moves) {
  return text.replace(SPECIFIER, (whole, lead, quote, spec) => {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    const moved = moves.get(target) ?? target;
    if (moved === target && newFile === file) return whole;
    let rel = path.posix.relative(path.posix.dirname(newFile), moved);
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${lead}${quote}${rel}${quote}`;
  });
}

function main(args) {
  const dry = args.includes('--dry-run');
  const pairs = args.filter((a) => !a.startsWith('--')).map((a) => a.split('='));
  const moves = expandMoves(pairs);
  for (const [from] of moves) if (!existsSync(path.join(ROOT, from))) throw new Error(`${from}: no such file`);
  let changed = 0;
  for (const file of trackedFiles()) {
    if (file.startsWith('examples/') || !existsSync(path.join(ROOT, file))) continue;
    const full = path.join(ROOT, file);
    const text = readFileSync(full, 'utf8');
    let next = text;
    if (CODE.test(file)) next = rewriteImports(text, file, moves.get(file) ?? file, moves);
    if (file.endsWith('.md')) for (const [from, to] of moves) next = next.replaceAll(from, to);
    if (next !== text) {
      changed++;
      if (!dry) writeFileSync(full, next);
    }
  }
  for (const [from, to] of moves) {
    if (dry) continue;
    execFileSync('mkdir', ['-p', path.dirname(path.join(ROOT, to))]);
    execFileSync('git', ['mv', from, to], { cwd: ROOT });
  }
  process.stdout.write(`${moves.size} file(s) moved, ${changed} file(s) rewritten${dry ? ' (dry run)' : ''}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
