import { IdxError } from '../../../domain/errors.ts';
import type { ProjectManifest } from '../../../domain/project/project-model.ts';
import type { NodeOptions } from './node-options.ts';

/** Each flag a manifest's `runner.node.options` may set: the manifest's field, and the flag's value from it. */
const FROM_MANIFEST = {
  disableHistorical: { field: 'historical', value: (v: boolean) => !v },
  unfinalizedBlocks: { field: 'unfinalizedBlocks', value: (v: boolean) => v },
  unsafe: { field: 'unsafe', value: (v: boolean) => v },
} as const;
export type RunnerFlag = keyof typeof FROM_MANIFEST;
export const RUNNER_FLAGS = Object.keys(FROM_MANIFEST) as RunnerFlag[];

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
  for (const flag of RUNNER_FLAGS) {
    const { field, value } = FROM_MANIFEST[flag];
    const set = fromManifest[field];
    if (given.has(flag) || set === undefined) continue;
    out[flag] = value(set);
    applied.push(`${field}: ${set}`);
  }
  if (out.disableHistorical && (out.unfinalizedBlocks || command === 'reindex')) {
    const off = given.has('disableHistorical') ? '--disable-historical' : `runner.node.options.historical: false in ${manifestPath}`;
    const what = command === 'reindex' ? 'reindex needs' : 'indexing unfinalized blocks (to roll forks back) needs';
    throw new IdxError('HISTORICAL_REQUIRED', `${what} historical tracking, which ${off} turns off; remove one of them`);
  }
  return { options: applied.length === 0 ? options : out, applied };
}
