import type { InstallOptions } from './isolate/wire.ts';

/**
 * The install options of each runtime a sandbox makes, in turn: the fresh entity types go to the first alone. A
 * runtime made after a reset has not seen the writes before it, so it cannot tell which ids are absent (the host's
 * store cache still can).
 */
export function runtimeInstalls(install: Omit<InstallOptions, 'progress'>): () => Omit<InstallOptions, 'progress'> {
  let made = 0;
  return () => (made++ === 0 || install.freshEntities === undefined ? install : { ...install, freshEntities: [] });
}
