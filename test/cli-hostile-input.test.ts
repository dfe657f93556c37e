import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { BIN, programEnv } from './support/idx-programs.ts';
import { projectFolder } from './support/idx-cli.ts';

// Hostile or oversized input given to the real programs, as processes: each is refused with exit
// code 1 and a message naming the file and the problem (never exit 2, "a bug in idx"), and
// nothing is written.

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(program: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, ['--no-node-snapshot', BIN(program), ...args], { cwd, env: programEnv(), timeout: 240_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1;
      done({ code, stdout, stderr });
    });
  });
}

const folder = (t: Test, files: Record<string, string> = {}) => projectFolder(t, files, 'idx-hostile-');

const ABI = [{ type: 'event', name: 'Transfer', inputs: [{ name: 'value', type: 'uint256', indexed: false }] }];

const MANIFEST = `specVersion: 1.0.0
schema: { file: ./schema.graphql }
network: { chainId: "1", endpoint: http://127.0.0.1:8545 }
dataSources:
  - kind: ethereum/Runtime
    startBlock: 1
    options: { abi: erc20 }
    assets: { erc20: { file: ./abis/erc20.abi.json } }
    mapping: { file: ./dist/index.js, handlers: [{ kind: ethereum/BlockHandler, handler: handleBlock }] }
`;

const project = (t: Test, files: Record<string, string>) =>
  folder(t, { 'project.yaml': MANIFEST, 'schema.graphql': 'type Account @entity {\n  id: ID!\n}\n', 'abis/erc20.abi.json': JSON.stringify(ABI), ...files });

/** Refused as a user's mistake: exit 1, the expected words, no stack trace. */
function refused(t: Test, r: Run, expected: (string | RegExp)[]): void {
  t.equal(r.code, 1, `exit code 1\n${r.stderr}`);
  for (const e of expected) t.match(r.stderr, e);
  t.notMatch(r.stderr, /bug in idx|RangeError|ReferenceError|\n\s+at /);
}

/** A YAML "billion laughs": nine levels of ten aliases each. */
function aliasBomb(): string {
  const lines = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

t.test('idx codegen: an ABI function name that would be code is refused, naming the file, and nothing is written', async (t) => {
  const abi = [
    ...ABI,
    { type: 'function', name: 'x() : Promise<void>;\n}\nexport const PWNED = 1;\ninterface Y {\n  z', stateMutability: 'view', inputs: [], outputs: [] },
  ];
  const dir = await project(t, { 'abis/erc20.abi.json': JSON.stringify(abi) });
  refused(t, await run('idx', ['codegen'], dir), [
    'abis/erc20.abi.json: function name "x() : Promise<void>;\\n}\\nexport const PWNED = 1;\\ninterf…" (item 1) is not a valid identifier',
  ]);
  t.notOk(existsSync(join(dir, 'src', 'types')), 'nothing written');
});

t.test('idx codegen: an entity Promise and fields constructor and then are refused with the reason', async (t) => {
  const dir = await project(t, { 'schema.graphql': 'type Promise @entity {\n  id: ID!\n  constructor: String\n  then: String\n}\n' });
  refused(t, await run('idx', ['codegen'], dir), [
    'entity Promise: Promise is a name the generated code uses',
    'Promise.constructor: "constructor" cannot be a property of the generated class Promise',
    'Promise.then: "then" cannot be a property',
  ]);
  t.notOk(existsSync(join(dir, 'src', 'types')));
});

t.test('idx codegen: names PostgreSQL would cut or merge are refused', async (t) => {
  const long = `E${'x'.repeat(70)}`;
  const dir = await project(t, { 'schema.graphql': `type ${long} @entity { id: ID! }\ntype Person @entity { id: ID! }\ntype People @entity { id: ID! }\n` });
  refused(t, await run('idx', ['codegen'], dir), [
    /its table name "ex+es" is longer than PostgreSQL's 63 bytes/,
    'entities Person and People would both be stored in table "people"; rename one',
  ]);
});

t.test('idx codegen: a YAML alias bomb in project.yaml is refused, naming the file', async (t) => {
  const dir = await project(t, { 'project.yaml': `${aliasBomb()}${MANIFEST}` });
  refused(t, await run('idx', ['codegen'], dir), [/project\.yaml is invalid:[\s\S]*its aliases \(\*name\) expand to too much data/]);
});

t.test('idx codegen: 3,000-deep nesting in project.yaml, project.json and schema.graphql is refused', async (t) => {
  const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
  const yaml = await project(t, { 'project.yaml': `${MANIFEST}x: ${deep}\n` });
  refused(t, await run('idx', ['codegen'], yaml), [/project\.yaml is invalid:[\s\S]*nested more than 100 levels deep/]);

  const block = await project(t, { 'project.yaml': `${MANIFEST}x:\n${Array.from({ length: 300 }, (_, i) => `${' '.repeat(i + 1)}- `).join('\n')}1\n` });
  refused(t, await run('idx', ['codegen'], block), [/nested more than 100 levels deep/]);

  const json = await project(t, { 'project.json': `{"specVersion": "1.0.0", "x": ${deep}}` });
  refused(t, await run('idx', ['codegen', '-f', 'project.json'], json), [/project\.json is invalid:[\s\S]*nested more than 100 levels deep/]);

  const schema = await project(t, { 'schema.graphql': `type A @entity { id: ID! x: ${'['.repeat(3000)}String${']'.repeat(3000)} }\n` });
  refused(t, await run('idx', ['codegen'], schema), [/schema\.graphql is invalid:[\s\S]*nested more than 100 levels deep/]);
});

t.test('idx init: a path, a 300-character name or a name npm refuses is refused, and nothing is created', async (t) => {
  const parent = await folder(t);
  const cwd = join(parent, 'here');
  await mkdir(cwd);
  refused(t, await run('idx', ['init', '../escape'], cwd), ['"../escape" is a path: idx init takes a project name']);
  t.notOk(existsSync(join(parent, 'escape')), 'nothing written outside the current folder');
  refused(t, await run('idx', ['init', join(parent, 'absolute')], cwd), ['is a path']);
  t.notOk(existsSync(join(parent, 'absolute')));
  refused(t, await run('idx', ['init', 'a'.repeat(300)], cwd), ['is 300 characters long; a project name has at most 63']);
  refused(t, await run('idx', ['init', 'HTTP'], cwd), ['npm refuses "http" as a package name']);
  t.same(await readdir(cwd), [], 'nothing created');
});

t.test('idx-node -c: a YAML alias bomb in the config file is refused, naming the file', async (t) => {
  const dir = await project(t, { 'config.yml': `${aliasBomb()}idx: .\n` });
  const r = await run('idx-node', ['-c', 'config.yml'], dir);
  t.equal(r.code, 1, r.stderr + r.stdout);
  t.match(r.stderr + r.stdout, /config\.yml is invalid:[\s\S]*its aliases \(\*name\) expand to too much data/);
  t.notMatch(r.stderr + r.stdout, /bug in idx|ReferenceError/);
});
