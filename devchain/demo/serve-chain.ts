import { rm, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { startEvmDemoChain } from './demo-chain.ts';

const USAGE = 'usage: demo-chain [--host 0.0.0.0] [--port 8545] [--interval 3] [--data-dir folder] [--ready-file path]';

/**
 * The demo's chain alone, for the compose stack's `chain` service: anvil on --host/--port with the
 * ERC20 that examples/erc20 indexes and its first 100 blocks of transfers, then five more transfers
 * every --interval seconds (0: none). With --data-dir the chain is kept there and taken up again at
 * the next start (an indexer that saw its blocks finds them again). --ready-file is written once
 * the first blocks are in, for the container's health check. Stops on SIGINT/SIGTERM.
 */
export async function main(argv: readonly string[] = []): Promise<void> {
  const say = (line: string) => process.stdout.write(`[demo-chain] ${line}\n`);
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        host: { type: 'string', default: '0.0.0.0' },
        port: { type: 'string', default: '8545' },
        interval: { type: 'string', default: '3' },
        'data-dir': { type: 'string' },
        'ready-file': { type: 'string' },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  const port = Number(values.port);
  const interval = Number(values.interval);
  if (!Number.isInteger(port) || port < 1 || port > 65535 || !(interval >= 0)) {
    process.stderr.write(`--port must be a port number and --interval seconds (0 or more)\n${USAGE}\n`);
    process.exit(2);
  }

  // a restarted container keeps its files: not ready until this start has its chain
  if (values['ready-file']) await rm(values['ready-file'], { force: true });
  const chain = await startEvmDemoChain(say, { host: values.host, port, ...(values['data-dir'] !== undefined && { dataDir: values['data-dir'] }) });
  say(`listening on ${values.host}:${port}`);
  if (values['ready-file']) await writeFile(values['ready-file'], `${new Date().toISOString()}\n`);

  let timer: NodeJS.Timeout | undefined;
  let stopping = false;
  // anvil's child process does not keep this one alive: this does, until a signal
  const keepAlive = setInterval(() => {}, 3_600_000);
  const tick = async () => {
    try {
      await chain.tick();
    } catch (err) {
      if (!stopping) say(`could not send transfers: ${(err as Error).message}`);
    }
    if (!stopping) timer = setTimeout(tick, interval * 1000);
  };
  if (interval > 0) {
    timer = setTimeout(tick, interval * 1000);
    say(`five transfers every ${interval} s`);
  }
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearTimeout(timer);
    clearInterval(keepAlive);
    await chain.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
