import { parseNodeArgs, type NodeOptions } from '../../apps/node/start-up/node-options.ts';
import { freePortGuess } from './node-ports.ts';

/** Node options as the CLI parses them, for a node run in the test's own process; no `endpoint`: the manifest's. */
export function nodeOptions(dir: string, endpoint: string | undefined, extra: readonly string[] = []): NodeOptions {
  const cmd = parseNodeArgs(
    ['-f', dir, ...(endpoint === undefined ? [] : ['--network-endpoint', endpoint]), '-p', String(freePortGuess()), '--log-level', 'warn', ...extra],
    {
      program: 'idx-node',
      version: 'test',
      variant: 'base',
      cores: 2,
      write: () => {},
    },
  );
  if (cmd.command !== 'run') throw new Error('expected a run command');
  return cmd.options;
}
