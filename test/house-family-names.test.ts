import t from 'tap';
import { ALLOWED, familyNames, familyNamesIn } from '../scripts/family-names.mjs';

// Issue 29: a chain family is its folders and a line in each registry; the core names no family.
t.test('no code outside a chain family’s folders and the registries names a family', async (t) => {
  const found = familyNames();
  const list = found.map((f) => `${f.file}:${f.line} ${f.text}`).join('\n');
  t.same(list, '', 'move it into the family’s folder (e.g. domain/chains/<family>/), or take it from the family’s registry entry');
});

t.test('the check reads code, not comments, and knows the families’ words', async (t) => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'family-names-'));
  const file = join(dir, 'a.ts');
  writeFileSync(
    file,
    [
      '// an EVM chain or a Substrate one: comments are free',
      "const kind = 'ethereum/Runtime';",
      "import { x } from '../chains/substrate/x.ts';",
      "const call = 'eth_getLogs';",
      "const rpc = 'chain_getBlockHash';",
      'const isEvm = true;',
      "const column = 'chain_block_hash';",
      'const CHAIN_COLUMN = 1;',
    ].join('\n'),
  );
  const words = familyNamesIn(file, dir).map((f) => f.text);
  t.same(words, ["'ethereum/Runtime'", "'../chains/substrate/x.ts'", "'eth_getLogs'", "'chain_getBlockHash'", 'isEvm']);
  t.ok(ALLOWED.size > 0, 'the registries are named, each with why');
});
