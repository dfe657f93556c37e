import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeErc20Workload } from '../make-erc20-workload.ts';
import { startAnvil } from '../start-anvil.ts';
import { startSubstrateChain } from '../start-substrate-chain.ts';
import { createSubstrateWorkload } from '../substrate-workload.ts';
import { findPackage } from '../../infra/package/find-package.ts';
import { createRpcClient } from '../../infra/rpc/create-rpc-client.ts';

const run = promisify(execFile);

/** A local chain for the demo: where it is, which starter indexes it, and how it keeps moving. */
interface DemoChain {
  url: string;
  example: 'erc20' | 'substrate';
  /** a few transfers in a new block */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

type Say = (line: string) => void;

/** anvil with an ERC20 and a few thousand transfers. */
async function startEvmDemoChain(say: Say): Promise<DemoChain> {
  // anvil calls a block final two blocks behind the head with one slot per epoch (64 by default).
  const anvil = await startAnvil({ args: ['--slots-in-an-epoch', '1'] });
  say(`anvil (chain 31337) at ${anvil.url}`);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  const workload = await makeErc20Workload(client, { blocks: 100, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 10, recipients: 200 });
  say(`ERC20 ${workload.token}: ${workload.transfers} transfers in blocks ${workload.fromBlock}-${workload.toBlock}`);
  return {
    url: anvil.url,
    example: 'erc20',
    tick: async () => {
      await makeErc20Workload(client, {
        blocks: 1,
        transfersPerBlock: 5,
        approvalsPerBlock: 0,
        senders: 10,
        recipients: 200,
        token: workload.token,
        seed: Date.now(),
      });
    },
    stop: () => anvil.stop(),
  };
}

/** A real Substrate runtime under chopsticks (ws://127.0.0.1:8000 when free), with transfers and batches in its first blocks. */
async function startSubstrateDemoChain(say: Say): Promise<DemoChain> {
  const chain = await startSubstrateChain({ port: 8000 }).catch(() => startSubstrateChain());
  const w = await createSubstrateWorkload(chain);
  say(`a Substrate chain (Rococo Asset Hub's runtime under chopsticks) at ${chain.wsUrl}`);
  const { alice, bob, charlie } = w.accounts;
  let n = 1n;
  const tick = async () => {
    await w.transfer('alice', bob, 10n ** 10n * n);
    await w.batchAll('alice', [
      [charlie, 10n ** 9n * n],
      [bob, 10n ** 8n * n],
    ]);
    n++;
    await w.block();
  };
  for (let i = 0; i < 12; i++) await tick();
  say(`blocks 1-${await chain.height()} hold transfers and utility.batchAll calls from //Alice`);
  return { url: chain.wsUrl, example: 'substrate', tick, stop: async () => (await w.close(), await chain.close()) };
}

/**
 * `npm start` (\`npm start -- substrate\` for a Substrate chain): a local chain with transfers, the
 * starter project (examples/erc20, examples/substrate) built and indexed into embedded PGlite, new
 * transfers every few seconds that the node follows, and idx-query serving them with the playground
 * and live subscriptions (it reads the node's PGlite through the socket the node serves in its data
 * folder). Everything is made fresh in a temporary folder; Ctrl-C stops it all.
 */
export async function main(args: readonly string[] = []): Promise<void> {
  const { root } = findPackage();
  const say = (line: string) => process.stdout.write(`[demo] ${line}\n`);
  const family = args[0] ?? 'ethereum';
  if (!['ethereum', 'evm', 'substrate'].includes(family)) {
    say(`unknown chain "${family}": npm start runs an EVM chain; npm start -- substrate a Substrate one`);
    process.exit(2);
  }
  const children: ChildProcess[] = [];
  const work = await mkdtemp(join(tmpdir(), 'idx-demo-'));
  const chain = family === 'substrate' ? await startSubstrateDemoChain(say) : await startEvmDemoChain(say);
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    await chain.stop();
    await rm(work, { recursive: true, force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    const project = join(work, chain.example);
    await cp(join(root, 'examples', chain.example), project, { recursive: true, filter: (src) => !/[/\\](node_modules|dist|\.idx-data)$/.test(src) });
    const node = process.execPath;
    await run(node, ['--no-node-snapshot', join(root, 'bin', 'idx.js'), 'codegen'], { cwd: project });
    await run(node, ['--no-node-snapshot', join(root, 'bin', 'idx.js'), 'build'], { cwd: project });
    say(`project built in ${project} (a copy of examples/${chain.example})`);

    const indexer = spawn(
      node,
      ['--no-node-snapshot', join(root, 'bin', 'idx-node.js'), '-f', project, '--network-endpoint', chain.url, '-p', '3000', '--subscription'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(indexer);
    let nodeOutput = '';
    let nodeUrl: string | undefined;
    let queryStarted = false;
    indexer.stdout!.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      nodeOutput += chunk.toString();
      const m = /serving \/health.* on (http:\/\/\S+)/.exec(nodeOutput);
      if (m && nodeUrl === undefined) {
        nodeUrl = m[1]!;
        say(`indexer metadata: ${nodeUrl}/meta   health: ${nodeUrl}/health   metrics: ${nodeUrl}/metrics`);
      }
      // the node serves its embedded database once the project schema is ready: idx-query can start
      if (!queryStarted && nodeUrl !== undefined && /serving the embedded database to idx-query/.test(nodeOutput)) {
        queryStarted = true;
        startQuery(nodeUrl);
      }
      if (nodeOutput.length > 100_000) nodeOutput = nodeOutput.slice(-10_000);
    });

    const startQuery = (indexerUrl: string) => {
      const query = spawn(
        node,
        ['--no-node-snapshot', join(root, 'bin', 'idx-query.js'), '-f', project, '--playground', '--subscription', '--indexer', indexerUrl, '--port', '3001'],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      children.push(query);
      let queryOutput = '';
      let announced = false;
      query.stdout!.on('data', (chunk: Buffer) => {
        process.stdout.write(chunk);
        queryOutput += chunk.toString();
        const m = /serving GraphQL .* at (http:\/\/\S+?)\/?\s/.exec(queryOutput);
        if (m && !announced) {
          announced = true;
          say(`GraphQL playground: ${m[1]}/   (open it in a browser; subscriptions: ws://${m[1]!.replace(/^http:\/\//, '')}/)`);
          say(
            chain.example === 'erc20'
              ? 'try: subscription { transfers { id mutation_type _entity { from { id } to { id } value } } }'
              : 'try: subscription { transfers { id mutation_type _entity { from { id } to { id } amount } } }',
          );
        }
        if (queryOutput.length > 100_000) queryOutput = queryOutput.slice(-10_000);
      });
      query.on('exit', (code) => {
        if (!stopping) {
          say(`the query service exited (${code}); stopping`);
          void stop(code ?? 1);
        }
      });
    };
    indexer.on('exit', (code) => {
      if (!stopping) {
        say(`the indexer exited (${code}); stopping`);
        void stop(code ?? 1);
      }
    });

    // Keep the chain moving so the node has something to follow.
    const tick = async () => {
      if (stopping) return;
      try {
        await chain.tick();
      } catch (err) {
        if (!stopping) say(`could not send transfers: ${(err as Error).message}`);
      }
      setTimeout(tick, 3000).unref();
    };
    setTimeout(tick, 3000).unref();
    say('sending transfers every 3 s; Ctrl-C to stop');
  } catch (err) {
    say(`failed: ${(err as Error).message}`);
    await stop(1);
  }
}
