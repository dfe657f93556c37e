import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The build's bundle of a compiled module, when it made one (scripts/bundle-programs.ts: the programs
 * and the worker threads' modules, in dist/bundle/ under their path with dots): a thread starts from
 * it as the programs do, loading a few files rather than hundreds. Otherwise, and with IDX_BUNDLE=0,
 * `url` itself.
 */
export function bundledModule(url: URL, env: Record<string, string | undefined> = process.env): URL {
  const path = fileURLToPath(url);
  const at = path.lastIndexOf('/dist/');
  if (env.IDX_BUNDLE === '0' || at < 0 || !path.endsWith('.js') || path.includes('/dist/bundle/')) return url;
  const modulePath = path.slice(at + '/dist/'.length, -'.js'.length);
  const bundled = join(path.slice(0, at), 'dist', 'bundle', `${modulePath.replaceAll('/', '.')}.js`);
  return existsSync(bundled) ? pathToFileURL(bundled) : url;
}
