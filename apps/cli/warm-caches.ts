import { pgliteTemplate } from '../../infra/postgres/pglite-template.ts';
import { createPreludeCache } from '../../infra/sandbox/create-prelude-cache.ts';
import { sandboxLibraries } from '../../infra/sandbox/families/registry.ts';

/**
 * What idx otherwise makes on its first run on a new machine, made at install (package.json
 * "install", bin/warm-caches.js), so that `npm start` and the first index start as fast as the
 * next: the embedded database's initdb template (~5 s, infra/postgres/pglite-template.ts), and the
 * sandbox's runtime and libraries (~2 and ~5 s from a checkout's sources; a built dist/ ships them,
 * infra/sandbox/create-prelude-cache.ts), in the user's private cache folder. Returns the seconds taken.
 */
export async function warmCaches(): Promise<number> {
  const started = performance.now();
  const prelude = createPreludeCache();
  await Promise.all([pgliteTemplate(), prelude.code(), ...sandboxLibraries.map((l) => prelude.library(l))]);
  return (performance.now() - started) / 1000;
}
