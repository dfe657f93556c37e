import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { createFakeLogger, createFakeStore, evaluateBundle } from './support/evaluate-bundle.ts';
import { PROGRAM_ENV } from './support/idx-programs.ts';

// End to end through the real `bin/idx.js`, in folders outside the repository (os.tmpdir()), so
// nothing from the repository's node_modules can help the project: idx must be enough.
const REPO = resolve(fileURLToPath(import.meta.url), '../..');
const BIN = join(REPO, 'bin', 'idx.js');
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    // no NODE_OPTIONS: the child must not inherit the test runner's loaders
    execFile(
      process.execPath,
      ['--no-node-snapshot', file, ...args],
      { cwd, env: { ...process.env, NODE_OPTIONS: '', ...PROGRAM_ENV } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
        done({ code, stdout, stderr });
      },
    );
  });
}

const idx = (args: string[], cwd: string) => run(BIN, args, cwd);

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'idx-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** An array-like with named keys, as ethers v5 decodes event arguments. */
function decodedArgs(entries: [string, unknown][]): unknown[] {
  return Object.assign(
    entries.map(([, v]) => v),
    Object.fromEntries(entries),
  );
}

function bigNumber(n: bigint) {
  return { _isBigNumber: true, toBigInt: () => n, toString: () => n.toString(), toNumber: () => Number(n) };
}

t.test('idx init demo && cd demo && idx codegen && idx build, with nothing but idx', async (t) => {
  const dir = await tempDir(t);
  const init = await idx(['init', 'demo'], dir);
  t.equal(init.code, 0, init.stderr);
  const demo = join(dir, 'demo');
  const codegen = await idx(['codegen'], demo);
  t.equal(codegen.code, 0, codegen.stderr);
  const build = await idx(['build'], demo);
  t.equal(build.code, 0, build.stderr);
  t.match(build.stdout, /built src\/index\.ts → dist\/index\.js/);

  t.test('the generated types and the mappings typecheck with tsc, nothing installed', async (t) => {
    const tsc = await run(TSC, ['--noEmit', '-p', demo], demo);
    t.equal(tsc.code, 0, `${tsc.stdout}${tsc.stderr}`);
  });

  t.test('project.ts is written out as dist/project.yaml, with the project name', async (t) => {
    const yaml = await readFile(join(demo, 'dist', 'project.yaml'), 'utf8');
    t.match(yaml, /^name: demo$/m);
    t.match(yaml, /chainId: "31337"/);
    t.match(yaml, /handler: handleTransfer/);
  });

  t.test('handleTransfer saves the transfer and moves the balance between the accounts', async (t) => {
    const code = await readFile(join(demo, 'dist', 'index.js'), 'utf8');
    const store = createFakeStore();
    const logger = createFakeLogger();
    const exports = evaluateBundle(code, { store: store.api, logger: logger.api, chainId: '31337' });
    t.same(Object.keys(exports).sort(), ['handleBlock', 'handleTransfer']);

    const alice = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const bob = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    const log = (from: string, to: string, value: bigint, logIndex: number) => ({
      address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      blockNumber: 7,
      blockHash: '0xb7',
      transactionHash: '0xt7',
      transactionIndex: 0,
      logIndex,
      removed: false,
      topics: [],
      data: '0x',
      block: { number: 7, hash: '0xb7', timestamp: 1_700_000_000n },
      args: decodedArgs([
        ['from', from],
        ['to', to],
        ['value', bigNumber(value)],
      ]),
    });
    const handleTransfer = exports.handleTransfer as (log: unknown) => Promise<void>;
    await handleTransfer(log(alice, bob, 250n, 0));
    await handleTransfer(log(bob, alice, 100n, 1));

    const sets = store.calls.filter((c) => c[0] === 'set');
    t.same(
      sets.map((c) => [c[1], c[2]]),
      [
        ['Transfer', '0xt7-0'],
        ['Account', alice],
        ['Account', bob],
        ['Transfer', '0xt7-1'],
        ['Account', bob],
        ['Account', alice],
      ],
    );
    const transfer = store.data.get('Transfer')!.get('0xt7-0')!;
    t.match(transfer, {
      id: '0xt7-0',
      blockHeight: 7n,
      fromId: alice,
      toId: bob,
      value: 250n,
      transactionHash: '0xt7',
      contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    });
    t.equal((transfer.timestamp as Date).toISOString(), '2023-11-14T22:13:20.000Z');
    t.equal(store.data.get('Account')!.get(alice)!.balance, -150n);
    t.equal(store.data.get('Account')!.get(bob)!.balance, 150n);
    t.match(logger.lines[0], /^\w+ transfer of 250 from 0x7099/);
  });

  t.test('handleBlock writes a StarterEntity with the block height', async (t) => {
    const code = await readFile(join(demo, 'dist', 'index.js'), 'utf8');
    const store = createFakeStore();
    const exports = evaluateBundle(code, { store: store.api, logger: createFakeLogger().api });
    await (exports.handleBlock as (b: unknown) => Promise<void>)({ number: 10, hash: '0xb10', timestamp: 1n });
    t.same(store.calls, [['set', 'StarterEntity', '0xb10', { id: '0xb10', blockHeight: 10n }]]);
  });
});

t.test("SubQuery's ethereum starter codegens and builds unchanged", async (t) => {
  const dir = await tempDir(t);
  await cp(join(REPO, 'infra', 'project', 'fixtures', 'erc20-ts'), dir, { recursive: true });
  await cp(join(REPO, 'apps', 'cli', 'fixtures', 'subql-starter-src', 'src'), join(dir, 'src'), { recursive: true });
  const codegen = await idx(['codegen', '-l', dir], tmpdir());
  t.equal(codegen.code, 0, codegen.stderr);
  const build = await idx(['build', '--location', dir, '--mode', 'development'], tmpdir());
  t.equal(build.code, 0, build.stderr);

  const code = await readFile(join(dir, 'dist', 'index.js'), 'utf8');
  t.match(code, /require\('assert'\)/, 'assert stays a require of the sandbox module');
  const store = createFakeStore();
  const exports = evaluateBundle(code, { store: store.api, logger: createFakeLogger().api });
  t.same(Object.keys(exports).sort(), ['handleLog', 'handleTransaction']);
  await (exports.handleLog as (l: unknown) => Promise<void>)({
    address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    blockNumber: 4719570,
    transactionHash: '0xabc',
    args: decodedArgs([
      ['from', '0x1'],
      ['to', '0x2'],
      ['value', bigNumber(5n)],
    ]),
  });
  await (exports.handleTransaction as (tx: unknown) => Promise<void>)({
    hash: '0xdef',
    from: '0x1',
    to: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    blockNumber: 4719571,
    args: decodedArgs([
      ['spender', '0x3'],
      ['rawAmount', bigNumber(9n)],
    ]),
  });
  t.same(store.calls, [
    [
      'set',
      'Transfer',
      '0xabc',
      { id: '0xabc', to: '0x2', from: '0x1', value: 5n, contractAddress: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', blockHeight: 4719570n },
    ],
    ['set', 'Approval', '0xdef', { id: '0xdef', owner: '0x1', spender: '0x3', value: 9n, contractAddress: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2' }],
  ]);
  const yaml = await readFile(join(dir, 'dist', 'project.yaml'), 'utf8');
  t.match(yaml, /endpoint:\n\s+- https:\/\/eth\.llamarpc\.com/, 'project.ts read its .env through dotenv');
});

t.test('errors name the problem and exit non-zero', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'package.json'), '{"name":"empty"}');

  const missing = await idx(['build'], dir);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /src\/index\.ts does not exist: idx build always bundles src\/index\.ts/);

  // the other usage errors (bad --mode, unknown options) are covered in-process by apps/cli/main.test.ts
  const again = await idx(['init', 'taken'], dir);
  t.equal(again.code, 0, again.stderr);
  const refused = await idx(['init', 'taken'], dir);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /taken exists and is not empty/);
});

t.test('--version', async (t) => {
  const version = await idx(['--version'], tmpdir());
  const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
  t.equal(version.code, 0);
  t.equal(version.stdout.trim(), pkg.version);
});
