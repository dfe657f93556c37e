import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startEvmDemoChain, startSubstrateDemoChain } from './demo-chain.ts';
import { findPackage } from '../../infra/package/find-package.ts';

const run = promisify(execFile);

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
      [
        '--no-node-snapshot',
        join(root, 'bin', 'idx-node.js'),
        '-f',
        project,
        '--network-endpoint',
        chain.url,
        '-p',
        '3000',
        '--subscription',
        '--changes-index',
        '--status-page',
      ],
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
        say(`indexer status page: ${nodeUrl}/   (open it in a browser)`);
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
        [
          '--no-node-snapshot',
          join(root, 'bin', 'idx-query.js'),
          '-f',
          project,
          '--playground',
          '--subscription',
          '--subgraph',
          '--indexer',
          indexerUrl,
          '--port',
          '3001',
        ],
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
