// Lists where code outside a chain family's folders names a family (issue 29: the core names no family).
// A family's folders are any folder named after it (domain/chains/ethereum/, infra/sandbox/families/substrate/, …);
// the registries that map a family's name to its folders are the one place allowed to name them all.
// Only code counts (identifiers, string and template text, import paths): comments may say "EVM" or "Substrate".
// Tests (*.test.ts) are not counted.
//   node scripts/family-names.mjs [folder…]      (--json for the list as JSON)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { FOLDERS, ROOT, sourceFiles } from './house-sources.mjs';

/** A family's folder names: code under a folder of one of these names is that family's own. */
export const FAMILY_FOLDERS = ['ethereum', 'substrate'];

/** What names a family in code: its name, its chains' libraries, its kinds and its RPC namespaces. */
const FAMILY_WORDS = [
  /ethereum|substrate|polkadot|frontier|(^|[^a-z])evm([^a-z]|$)/i,
  // EVM as a part of a camelCase or PascalCase name (isEvm, EvmBlock, EVM_CALL)
  /Evm|EVM/,
  // JSON-RPC methods: EVM's (eth_call) and Substrate's (chain_getBlockHash, state_getStorage)
  /^(eth|net|web3|debug|trace)_[a-zA-Z]|^(chain|state|system|author|payment)_[a-z]+[A-Z]/,
];

/** Files allowed to name every family, each with why. */
export const ALLOWED = new Map([
  ['domain/chains/families.ts', 'the table of families by kind'],
  ['apps/node/families/registry.ts', "idx-node's families by name"],
  ['apps/cli/families/registry.ts', "the idx program's families by name (starters, dev chains, codegen parts)"],
  ['infra/sandbox/families/registry.ts', "the sandbox's families by name, host side (library, host operations, block runners)"],
  ['infra/sandbox/isolate/families/registry.ts', "the sandbox's families by name, isolate side (`api`, handler arguments)"],
]);
/** Folders allowed to name a family, each with why. */
export const ALLOWED_FOLDERS = new Map([
  // idx-shard is the sharded Ethereum data node: the whole program is one family's
  ['apps/shard/', 'idx-shard serves Ethereum JSON-RPC; it is an EVM program'],
]);

const CODE_TOKENS = new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.PrivateIdentifier,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
]);

/** The family words one file's code holds, as { file, line, text }. */
export function familyNamesIn(file, root = ROOT) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (CODE_TOKENS.has(node.kind)) {
      const word = node.getText(source);
      const bare = word.replace(/^['"`}]|['"`]$|\$\{$/g, '');
      if (FAMILY_WORDS.some((w) => w.test(bare))) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push({ file: path.relative(root, file), line, text: word.slice(0, 80) });
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every place outside the families' folders and the registries that names a family. */
export function familyNames(folders = FOLDERS, root = ROOT) {
  const all = [];
  for (const folder of folders) {
    for (const file of sourceFiles(path.join(root, folder), FAMILY_FOLDERS)) {
      const rel = path.relative(root, file);
      if (ALLOWED.has(rel) || [...ALLOWED_FOLDERS.keys()].some((f) => rel.startsWith(f))) continue;
      all.push(...familyNamesIn(file, root));
    }
  }
  return all;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const folders = args.filter((a) => !a.startsWith('--'));
  const found = familyNames(folders.length > 0 ? folders : FOLDERS);
  if (args.includes('--json')) {
    process.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
  } else {
    const byFile = new Map();
    for (const f of found) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
    for (const [file, list] of byFile) {
      process.stdout.write(
        `${file} (${list.length}): ${list
          .map((f) => `${f.line}:${f.text}`)
          .join(', ')
          .slice(0, 300)}\n`,
      );
    }
    process.stdout.write(`${found.length} place(s) in ${byFile.size} file(s) name a chain family outside its folders\n`);
  }
}
