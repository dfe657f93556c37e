import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import t, { type Test } from 'tap';
import ts from 'typescript';
import { ValidationError } from '../../domain/errors.ts';
import { projectFolder } from '../../test/support/idx-cli.ts';
import { codegen } from './codegen.ts';
import type { Reporter } from './reporter.ts';

// Names from users' files in every place codegen writes them: what is accepted must compile to
// exactly the declarations intended (parsed with the TypeScript compiler, top-level statement by
// statement, and type-checked); what cannot be written safely is refused, naming the file, with
// nothing written.

const quiet: Reporter = { info: () => undefined, warn: () => undefined };

const project = (t: Test, files: Record<string, string>) => projectFolder(t, files, 'idx-codegen-names-');

const manifest = (templates: string[] = ['Pool']) => `
specVersion: 1.0.0
schema: { file: ./schema.graphql }
network: { chainId: "1", endpoint: http://127.0.0.1:8545 }
dataSources:
  - kind: ethereum/Runtime
    startBlock: 1
    options: { abi: token }
    assets: { token: { file: ./abis/token.json } }
    mapping: { file: ./dist/index.js, handlers: [{ kind: ethereum/BlockHandler, handler: handleBlock }] }
templates:
${templates
  .map(
    (name) => `  - name: ${JSON.stringify(name)}
    kind: ethereum/Runtime
    options: { abi: token }
    assets: { token: { file: ./abis/token.json } }
    mapping: { file: ./dist/index.js, handlers: [{ kind: ethereum/BlockHandler, handler: handleBlock }] }`,
  )
  .join('\n')}
`;

const SCHEMA = 'type Account @entity {\n  id: ID!\n}\n';
const ABI = [{ type: 'event', name: 'Transfer', inputs: [{ name: 'value', type: 'uint256', indexed: false }] }];

/** Every generated .ts file: path → `kind name` of each top-level statement, and the syntax errors. */
async function declarations(typesDir: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('.ts') && entry.name !== 'ethereum.ts' && entry.name !== 'global.d.ts') {
        const source = ts.createSourceFile(path, await readFile(path, 'utf8'), ts.ScriptTarget.ES2022, true);
        const syntax = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics.map(
          (d) => `syntax error: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
        );
        out.set(relative(typesDir, path), [...syntax, ...source.statements.map(describe)]);
      }
    }
  };
  await walk(typesDir);
  return out;
}

function describe(s: ts.Statement): string {
  const kind = ts.SyntaxKind[s.kind];
  const name = (s as { name?: ts.Node }).name;
  if (ts.isEnumDeclaration(s)) return `${kind} ${s.name.text} { ${s.members.map((m) => m.name.getText()).join(', ')} }`;
  if (ts.isClassDeclaration(s)) return `${kind} ${s.name?.text} { ${s.members.map((m) => m.name?.getText() ?? 'constructor').join(', ')} }`;
  if (ts.isVariableStatement(s)) return `VariableStatement ${s.declarationList.declarations.map((d) => d.name.getText()).join(', ')}`;
  if (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) return `${kind} ${s.moduleSpecifier?.getText() ?? ''}`.trim();
  return name === undefined ? kind : `${kind} ${name.getText()}`;
}

/** Type errors of the generated files, compiled together as a project's tsconfig would. */
function typeErrors(typesDir: string, files: string[]): string[] {
  const program = ts.createProgram(
    files.map((f) => join(typesDir, f)),
    {
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      noEmit: true,
      types: [],
    },
  );
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? relative(typesDir, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

t.test('reserved words and odd names in every position compile to exactly the declarations intended', async (t) => {
  const schema = `
enum Kind { class, new, delete, constructor, then }
type Holder @entity {
  id: ID!
  delete: String! @index
  new: Int!
  class: Kind!
  default: String @index(unique: true)
  in: Holder
  return: [Kind!]
  meta: Data
  arguments: Int!
  delete_: Int!
}
type Data @jsonField { let: String, yield: Int, kind: Kind }
`;
  const abi = [
    {
      type: 'function',
      name: 'delete',
      stateMutability: 'view',
      inputs: [
        { name: 'overrides', type: 'uint256' },
        { name: 'class', type: 'address' },
        { name: 'a', type: 'uint8' },
        { name: 'a', type: 'uint8' },
        { name: '', type: 'bool' },
        { name: 'arg4', type: 'bool' },
      ],
      outputs: [
        { name: 'new', type: 'uint256' },
        { name: 'then', type: 'string' },
      ],
    },
    { type: 'function', name: 'then', stateMutability: 'view', inputs: [], outputs: [] },
    { type: 'function', name: 'constructor', stateMutability: 'view', inputs: [], outputs: [] },
    {
      type: 'function',
      name: 'address',
      stateMutability: 'view',
      inputs: [
        {
          name: 's',
          type: 'tuple',
          components: [
            { name: 'constructor', type: 'uint256' },
            { name: 'default', type: 'bool' },
          ],
        },
      ],
      outputs: [],
    },
    { type: 'event', name: 'then', inputs: [{ name: 'enum', type: 'uint256', indexed: false }] },
    { type: 'event', name: 'Transfer', inputs: [{ name: 'a', type: 'uint256', indexed: false }] },
    {
      type: 'event',
      name: 'transfer',
      inputs: [
        { name: 'a', type: 'uint256', indexed: false },
        { name: 'b', type: 'uint256', indexed: false },
      ],
    },
    { type: 'error', name: 'Oops', inputs: [{ name: 'why', type: 'string' }] },
  ];
  const dir = await project(t, {
    'project.yaml': manifest(['Pool', 'x"); export const PWNED = 1; ("']),
    'schema.graphql': schema,
    'abis/token.json': JSON.stringify(abi),
  });
  const { typesDir, files } = await codegen({ location: dir, reporter: quiet });
  const found = await declarations(typesDir);

  t.same(found.get('models/Holder.ts'), [
    'ImportDeclaration "../ethereum"',
    'ImportDeclaration "../enums"',
    'ImportDeclaration "../interfaces"',
    'VariableStatement store',
    'TypeAliasDeclaration HolderProps',
    'ClassDeclaration Holder { constructor, id, delete, new, class, default, inId, return, meta, arguments, delete_, _name, save, remove, get, getByDelete, getByDefault, getByInId, getByFields, create }',
  ]);
  t.same(found.get('enums.ts'), ['EnumDeclaration Kind { "class", "new", "delete", constructor, then }']);
  t.same(found.get('interfaces.ts'), ['ImportDeclaration "./enums"', 'InterfaceDeclaration Data']);
  t.same(found.get('datasources.ts'), [
    'FunctionDeclaration createDynamicDatasource',
    'FunctionDeclaration createPoolDatasource',
    'FunctionDeclaration createx____export_const_PWNED___1____Datasource',
  ]);
  t.same(found.get('abi-interfaces/Token.ts'), [
    'ImportDeclaration "../ethereum"',
    'ExportDeclaration',
    'TypeAliasDeclaration ThenEventArgs',
    'TypeAliasDeclaration ThenLog',
    'TypeAliasDeclaration Transfer_uint256EventArgs',
    'TypeAliasDeclaration Transfer_uint256Log',
    'TypeAliasDeclaration Transfer_uint256_uint256EventArgs',
    'TypeAliasDeclaration Transfer_uint256_uint256Log',
    'TypeAliasDeclaration DeleteCallArgs',
    'TypeAliasDeclaration DeleteTransaction',
    'TypeAliasDeclaration ThenCallArgs',
    'TypeAliasDeclaration ThenTransaction',
    'TypeAliasDeclaration ConstructorCallArgs',
    'TypeAliasDeclaration ConstructorTransaction',
    'TypeAliasDeclaration AddressCallArgs',
    'TypeAliasDeclaration AddressTransaction',
  ]);
  t.same(found.get('contracts/Token.ts'), [
    'ImportDeclaration "../ethereum"',
    'ExportDeclaration',
    'InterfaceDeclaration CallOverrides',
    'InterfaceDeclaration Token',
  ]);
  t.same(found.get('contracts/factories/Token__factory.ts'), [
    'ImportDeclaration "idx:contract-runtime"',
    'ImportDeclaration "../Token"',
    'VariableStatement abi',
    'ClassDeclaration Token__factory { abi, connect }',
  ]);
  const contract = await readFile(join(typesDir, 'contracts', 'Token.ts'), 'utf8');
  t.match(
    contract,
    '  delete(overrides_: BigNumberish, class_: string, a: BigNumberish, a_: BigNumberish, arg4: boolean, arg4_: boolean, overrides?: CallOverrides)',
  );
  t.notMatch(contract, /^\s+(then|constructor|address)\(/m, 'members every contract has are reachable by signature only');
  t.match(await readFile(join(typesDir, 'datasources.ts'), 'utf8'), 'createDynamicDatasource("x\\"); export const PWNED = 1; (\\"", args)');

  t.same(typeErrors(typesDir, files), [], 'the generated files type-check together');
});

t.test('an ABI name that is not an identifier is refused, naming the file and the name, and nothing is written', async (t) => {
  const hostile = [
    { type: 'function', name: 'x() : Promise<void>;\n}\nexport const PWNED = 1;\ninterface Y {\n  z', stateMutability: 'view', inputs: [], outputs: [] },
    { type: 'event', name: 'E() */ export const Q = 1; /*', inputs: [] },
    { type: 'error', name: 'Bad Error', inputs: [] },
    { type: 'function', name: 'ok', stateMutability: 'view', inputs: [{ name: 'a; export const R = 1', type: 'uint256' }], outputs: [] },
    {
      type: 'function',
      name: 'ok2',
      stateMutability: 'view',
      inputs: [{ name: 's', type: 'tuple', components: [{ name: 'x-y', type: 'bool' }] }],
      outputs: [],
    },
    { type: 'event', name: 'E2', inputs: [{ name: '__proto__', type: 'uint256', indexed: false }] },
    { type: 'function', name: '__proto__', stateMutability: 'view', inputs: [], outputs: [] },
  ];
  const dir = await project(t, { 'project.yaml': manifest(), 'schema.graphql': SCHEMA, 'abis/token.json': JSON.stringify(hostile) });
  const err = await codegen({ location: dir, reporter: quiet }).catch((e: unknown) => e);
  t.type(err, ValidationError);
  const message = (err as Error).message;
  t.match(message, /^abis\/token\.json is invalid:/);
  for (const line of [
    'abis/token.json: function name "x() : Promise<void>;\\n}\\nexport const PWNED = 1;\\ninterf…" (item 0) is not a valid identifier',
    'abis/token.json: event name "E() */ export const Q = 1; /*" (item 1) is not a valid identifier',
    'abis/token.json: error name "Bad Error" (item 2) is not a valid identifier',
    'abis/token.json: function ok input 0: parameter name "a; export const R = 1" is not a valid identifier',
    'abis/token.json: function ok2 input 0 component 0: parameter name "x-y" is not a valid identifier',
    'abis/token.json: event E2 input 0: parameter name "__proto__" is not a valid identifier',
    'abis/token.json: function name "__proto__" (item 6) is not a valid identifier',
  ]) {
    t.match(message, line);
  }
  t.notOk(existsSync(join(dir, 'src', 'types')), 'nothing written');
});

t.test('schema names that would break or change the generated classes are refused with the reason', async (t) => {
  const cases: [string, string, string[]][] = [
    ['entity Promise', 'type Promise @entity { id: ID! }', ['entity Promise: Promise is a name the generated code uses (it would be shadowed); rename it']],
    ['entity store', 'type store @entity { id: ID! }', ['entity store: store is a name the generated code uses']],
    ['entity string', 'type string @entity { id: ID! }', ['entity string: string is a reserved word in TypeScript']],
    ['entity ending in Filter', 'type TransferFilter @entity { id: ID! }', ['entity TransferFilter: an entity name may not end with "Filter" or "Filters"']],
    ['enum Omit', 'type A @entity { id: ID! }\nenum Omit { X }', ['enum Omit: Omit is a name the generated code uses']],
    [
      '@jsonField type Error',
      'type A @entity { id: ID!, e: Error }\ntype Error @jsonField { a: String }',
      ['@jsonField type Error: Error is a name the generated code uses'],
    ],
    [
      'members of the class and of every object',
      'type A @entity { id: ID!, constructor: String, then: String, save: Int, _name: String, toString: String, owner: A, valueOf: Int }',
      [
        'A.constructor: "constructor" cannot be a property of the generated class A (it is a member every JavaScript object has)',
        'A.then: "then" cannot be a property of the generated class A (it is what await takes an object for a promise by)',
        'A.save: "save" cannot be a property of the generated class A (it is a member of every generated entity class)',
        'A._name: "_name" cannot be a property',
        'A.toString: "toString" cannot be a property',
        'A.valueOf: "valueOf" cannot be a property',
      ],
    ],
    [
      'a lookup clashing with getByFields',
      'type A @entity { id: ID!, fields: String @index }',
      ['A.fields: its lookup A.getByFields would be the lookup by several fields too'],
    ],
    [
      'a type named as another entity’s props',
      'type A @entity { id: ID! }\nenum AProps { X }',
      ['enum AProps and the props type of entity A would both be exported from src/types as AProps'],
    ],
    ['a @jsonField field then', 'type A @entity { id: ID!, d: D }\ntype D @jsonField { then: String }', ['D.then: "then" cannot be a property']],
  ];
  for (const [what, schema, expected] of cases) {
    const dir = await project(t, { 'project.yaml': manifest(), 'schema.graphql': schema, 'abis/token.json': JSON.stringify(ABI) });
    const err = await codegen({ location: dir, reporter: quiet }).catch((e: unknown) => e);
    t.type(err, ValidationError, what);
    for (const line of expected) t.match((err as Error).message, line, what);
    t.notOk(existsSync(join(dir, 'src', 'types')), `${what}: nothing written`);
  }

  const clash = await project(t, { 'project.yaml': manifest(['a-b', 'a_b']), 'schema.graphql': SCHEMA, 'abis/token.json': JSON.stringify(ABI) });
  const err = await codegen({ location: clash, reporter: quiet }).catch((e: unknown) => e);
  t.match(
    (err as Error).message,
    'the function of template "a_b" and the function of template "a-b" would both be exported from src/types as createa_bDatasource',
  );
});

t.test('an ABI file named as a name the generated code uses, and two ABI items typed alike, are refused', async (t) => {
  const dir = await project(t, {
    'project.yaml': manifest().replaceAll('./abis/token.json', './abis/promise.json'),
    'schema.graphql': SCHEMA,
    'abis/promise.json': JSON.stringify(ABI),
  });
  const err = await codegen({ location: dir, reporter: quiet }).catch((e: unknown) => e);
  t.match((err as Error).message, /promise\.json gives the ABI interface name Promise, a name the generated code uses; rename the file/);

  const twins = [
    { type: 'event', name: 'Transfer', inputs: [{ name: 'a', type: 'uint256', indexed: false }] },
    { type: 'event', name: 'transfer', inputs: [{ name: 'a', type: 'uint256', indexed: false }] },
  ];
  const twin = await project(t, { 'project.yaml': manifest(), 'schema.graphql': SCHEMA, 'abis/token.json': JSON.stringify(twins) });
  const twinErr = await codegen({ location: twin, reporter: quiet }).catch((e: unknown) => e);
  t.match((twinErr as Error).message, 'token.json: Transfer(uint256) and transfer(uint256) would both be typed as Transfer_uint256');
  t.notOk(existsSync(join(twin, 'src', 'types')));
});
