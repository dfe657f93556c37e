import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { bundledModule } from '../package/bundled-module.ts';

/**
 * A worker thread running the module at `url`. From the TypeScript sources (a checkout) the thread
 * registers tsx itself first: a loader given by flag does not reach threads. Threads take the
 * process's flags except those only a process may have.
 */
export function startModuleWorker(module: URL, workerData: unknown): Worker {
  const url = bundledModule(module);
  const boot =
    extname(fileURLToPath(url)) === '.ts'
      ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`
      : `import(${JSON.stringify(url.href)});`;
  const execArgv = process.execArgv.filter((a) => a !== '--no-node-snapshot');
  return new Worker(boot, { eval: true, workerData, execArgv });
}

/** The module `name` beside the caller (`import.meta.url`), with the caller's extension: `.ts` from the sources, `.js` compiled. */
export function siblingModule(name: string, callerUrl: string): URL {
  return new URL(`./${name}${extname(fileURLToPath(callerUrl))}`, callerUrl);
}
