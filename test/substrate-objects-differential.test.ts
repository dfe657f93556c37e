import t from 'tap';
import { startSubstrateChain } from '../devchain/start-substrate-chain.ts';
import { ApiPromise } from '@polkadot/api';
import { RetryingHttpProvider } from './support/retrying-http-provider.ts';
import { compileSubstrateSource, matchSubstrateHandlers, type SubstrateHandlerCall } from '../domain/chains/substrate/match-substrate-handlers.ts';
import { createSubstrateSource } from '../infra/chains/substrate/create-substrate-source.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { createSandbox } from '../infra/sandbox/create-sandbox.ts';
import { createFakeHost } from '../infra/sandbox/fixtures/fake-host.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { buildVariedBlocks } from './support/substrate-varied-workload.ts';
import { createWalker, subqlObjectsOf, WALK_MAPPING, type WalkPairs } from './support/substrate-walk.ts';

/**
 * The objects Substrate handlers receive in idx's sandbox are @polkadot/api's, as @subql/node builds
 * them, on every path a mapping can read them by. A varied workload runs on the local chain; its
 * blocks go the node's way (the chain source fetches them, the sandbox gets the payload and decodes
 * what is read), to a mapping whose block, call and event handlers walk their argument
 * (test/fixtures/substrate-walk/walk.js; the block handler also what `api` reads at the block). The
 * same walk then runs in Node over the objects @polkadot/api makes of the same blocks, wrapped as
 * @subql/node wraps them, and the two walks must be equal, value by value. Four passes over the
 * blocks: block handlers only, call handlers only, event handlers only, then all three in the node's
 * order, so that each kind of argument is also the first to read a fresh block.
 */
exitWhenDone();

// 190 s on a slower 2-core machine (2026-11-30), near tap's 300 s
t.setTimeout(600_000);

const chain = await startSubstrateChain();
t.teardown(() => chain.close());
const end = await buildVariedBlocks(chain);

const client = createRpcClient({ endpoints: [{ url: chain.httpUrl }] });
const source = createSubstrateSource(client);
const fake = createFakeHost({
  request: (method, params) => client.request(method, params as unknown[]),
  substrateRuntime: (v: number) => source.runtimeInputs(v),
});
const sb = await createSandbox({ code: WALK_MAPPING, fileName: '/walk/dist/index.js', family: 'substrate', host: fake.host });
t.teardown(() => sb.dispose());
const blocks = await source.getBlocks(1, end);

const handler = (kind: string, name: string) => ({ kind: `substrate/${kind}`, handler: name });
const PASSES = [
  [handler('BlockHandler', 'onBlock')],
  [handler('CallHandler', 'onCall')],
  [handler('EventHandler', 'onEvent')],
  [handler('BlockHandler', 'onBlock'), handler('CallHandler', 'onCall'), handler('EventHandler', 'onEvent')],
];

/**
 * Differences a handler cannot act on, or that another change removes, each with its reason. Matched
 * on the path and both values, so that nothing else hides behind them.
 */
const KNOWN: { path: RegExp; ours: RegExp; reference: RegExp; why: string }[] = [
  {
    // @polkadot/types' getClassName gives the first name a registry cached a class under: @polkadot/api's has
    // made every call's argument classes by lookup name while decorating api.tx, before any block was decoded
    path: /\.method\.(Type|args:raw)$/,
    ours: /now\W+Compact<u64>/,
    reference: /now\W+Lookup\d+/,
    why: "the name toRawType() gives timestamp.set's argument class",
  },
];

t.test('every handler argument of every block reads as @polkadot/api gives it, as @subql/node builds it, on every path', async (t) => {
  // the sandbox's walks, by handler call: `<pass>/<height>-b|x<idx>|e<idx>`
  const ours = new Map<string, WalkPairs>();
  const plan: { pass: number; height: number; calls: SubstrateHandlerCall[] }[] = [];
  for (const [pass, handlers] of PASSES.entries()) {
    const sources = [compileSubstrateSource({ startBlock: 1, mapping: { file: './dist/index.js', handlers } } as never, 0)];
    for (const block of blocks) {
      const calls = matchSubstrateHandlers(sources, block, 0);
      plan.push({ pass, height: block.height, calls });
      fake.calls.length = 0;
      await sb.runSubstrateBlock(block, calls);
      for (const c of fake.calls) if (c[0] === 'set') ours.set(`${pass}/${c[2] as string}`, JSON.parse((c[3] as { json: string }).json) as WalkPairs);
    }
  }

  // the same walk, in the same order, over @polkadot/api's objects (made anew for each pass, as the sandbox makes its own)
  const api = await ApiPromise.create({ provider: new RetryingHttpProvider(chain.httpUrl), noInitWarn: true });
  t.teardown(() => api.disconnect());
  const walker = createWalker();
  const reference = new Map<string, WalkPairs>();
  // as the sandbox's walks cross to the store (undefined in a list becomes null)
  const crossed = (pairs: WalkPairs) => JSON.parse(JSON.stringify(pairs)) as WalkPairs;
  const seen = new Set<string>();
  for (const { pass, height, calls } of plan) {
    const made = await subqlObjectsOf(api, height);
    for (const c of calls) {
      if (c.kind === 'block') reference.set(`${pass}/${height}-b`, crossed(walker.block(made.block).concat(await walker.api(made.api))));
      else if (c.kind === 'call') reference.set(`${pass}/${height}-x${c.index}`, crossed(walker.call(made.extrinsics[c.index])));
      else reference.set(`${pass}/${height}-e${c.index}`, crossed(walker.event(made.events[c.index])));
    }
    for (const e of made.block.events) seen.add(`${e.event.section}.${e.event.method}`);
  }

  t.ok(
    [
      'balances.Transfer',
      'system.ExtrinsicFailed',
      'system.Remarked',
      'utility.BatchInterrupted',
      'utility.BatchCompleted',
      'assets.Created',
      'assets.Issued',
      'assets.Transferred',
      'proxy.ProxyAdded',
      'proxy.ProxyExecuted',
      'multisig.NewMultisig',
      'multisig.MultisigExecuted',
    ].every((kind) => seen.has(kind)),
    `the workload made every kind of event it means to (${[...seen].sort().join(', ')})`,
  );
  t.same([...ours.keys()], [...reference.keys()], 'every handler call ran, in the same order');

  const differences: string[] = [];
  const known = new Map<string, number>();
  let compared = 0;
  for (const [id, theirs] of reference) {
    const mine = ours.get(id) ?? [];
    for (let i = 0; i < Math.max(theirs.length, mine.length); i++) {
      const [path, value] = theirs[i] ?? ['(missing)', undefined];
      const [ourPath, ourValue] = mine[i] ?? ['(missing)', undefined];
      compared++;
      if (path === ourPath && JSON.stringify(value) === JSON.stringify(ourValue)) continue;
      const excuse = KNOWN.find((k) => path === ourPath && k.path.test(path) && k.ours.test(String(ourValue)) && k.reference.test(String(value)));
      if (excuse !== undefined) known.set(excuse.why, (known.get(excuse.why) ?? 0) + 1);
      else differences.push(`${id} ${path}: ${JSON.stringify(value)}, idx: ${ourPath === path ? '' : `${ourPath} `}${JSON.stringify(ourValue)}`);
    }
  }
  t.ok(compared > 100_000, `${compared} values compared over ${blocks.length} blocks`);
  for (const [why, n] of known) t.comment(`known difference, ${n}×: ${why}`);
  t.same(differences.slice(0, 40), [], `no value differs (${differences.length} do)`);
});
