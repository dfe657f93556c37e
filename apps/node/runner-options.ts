import { IdxError } from '../../domain/errors.ts';
import type { ProjectManifest } from '../../domain/project/project-model.ts';
import type { NodeOptions } from './node-options.ts';

/** The flags a manifest's `runner.node.options` may set, by option name. */
export const RUNNER_FLAGS = ['disableHistorical', 'unfinalizedBlocks', 'unsafe'] as const;
export type RunnerFlag = (typeof RUNNER_FLAGS)[number];

/**
 * SubQuery's `runner.node.options` (`historical`, `unsafe`, `unfinalizedBlocks`) set the flags the
 * command line does not give; a flag given on the command line wins. `applied` names what the
 * manifest set, for the log. Refused as the flags are when they combine badly.
 */
export function withRunnerOptions(
  options: NodeOptions,
  manifest: ProjectManifest,
  manifestPath: string,
  command: 'run' | 'reindex' = 'run',
): { options: NodeOptions; applied: string[] } {
  const given = new Set<string>(options.givenFlags ?? []);
  const fromManifest = manifest.runner?.node.options ?? {};
  const out = { ...options };
  const applied: string[] = [];
  if (!given.has('disableHistorical') && fromManifest.historical !== undefined) {
    out.disableHistorical = !fromManifest.historical;
    applied.push(`historical: ${fromManifest.historical}`);
  }
  if (!given.has('unfinalizedBlocks') && fromManifest.unfinalizedBlocks !== undefined) {
    out.unfinalizedBlocks = fromManifest.unfinalizedBlocks;
    applied.push(`unfinalizedBlocks: ${fromManifest.unfinalizedBlocks}`);
  }
  if (!given.has('unsafe') && fromManifest.unsafe !== undefined) {
    out.unsafe = fromManifest.unsafe;
    applied.push(`unsafe: ${fromManifest.unsafe}`);
  }
  if (out.disableHistorical && (out.unfinalizedBlocks || command === 'reindex')) {
    const off = given.has('disableHistorical') ? '--disable-historical' : `runner.node.options.historical: false in ${manifestPath}`;
    const what = command === 'reindex' ? 'reindex needs' : 'indexing unfinalized blocks (to roll forks back) needs';
    throw new IdxError('HISTORICAL_REQUIRED', `${what} historical tracking, which ${off} turns off; remove one of them`);
  }
  return { options: applied.length === 0 ? options : out, applied };
}
