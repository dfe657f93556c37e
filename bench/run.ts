import { readdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileIfStale } from '../scripts/compile.ts';

/**
 * `npm run bench [filter]`: runs every `bench/*.bench.ts` whose name contains the filter, or only
 * `<filter>.bench.ts` when there is such a file.
 * A benchmark module default-exports `{ name, run }`; it prints its own figures and asserts nothing.
 */

export interface Benchmark {
  name: string;
  run(): Promise<void>;
}

const dir = fileURLToPath(new URL('.', import.meta.url));
// The programs benchmarked are the compiled ones users run: dist/, compiled first if older than the sources.
if (!compileIfStale()) process.exit(1);
const filter = process.argv[2];
const all = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts')).sort();
// a filter naming a benchmark file exactly runs that file alone (`substrate` is not also `substrate-projects`)
const exact = all.filter((f) => f === `${filter}.bench.ts`);
const files = exact.length > 0 ? exact : all;
let ran = 0;
for (const file of files) {
  const mod = (await import(pathToFileURL(`${dir}/${file}`).href)) as { default?: Benchmark | Benchmark[] };
  const list = mod.default === undefined ? [] : Array.isArray(mod.default) ? mod.default : [mod.default];
  for (const bench of list) {
    if (filter !== undefined && !bench.name.includes(filter) && !file.includes(filter)) continue;
    console.log(`\n== ${bench.name} (${file})`);
    const started = performance.now();
    await bench.run();
    console.log(`-- ${bench.name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    ran++;
  }
}
if (ran === 0) {
  console.error(filter === undefined ? 'no benchmarks found in bench/' : `no benchmark matches "${filter}"`);
  process.exitCode = 1;
}
