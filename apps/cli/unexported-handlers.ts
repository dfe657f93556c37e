import { basename, relative, resolve } from 'node:path';
import { didYouMean } from '../../domain/closest-name.ts';
import type { LoadedProject } from '../../infra/project/load-project.ts';

/** A bundle `idx build` wrote, with the names it exports. */
export interface BundleExports {
  /** `index`, or the key of a package.json `exports` entry */
  name: string;
  file: string;
  exports: readonly string[];
}

/**
 * The handlers the manifest names that the bundles do not export, one line each: each data source's and
 * template's handlers against the bundle its `mapping.file` names (the output file itself, or the entry of
 * that name, e.g. `dist/index.js` → `index`). A name one edit from an export gets a "did you mean". A
 * mapping file this build did not write is left to idx-node. `idx build` warns with them and still builds, as
 * SubQuery's does: its node, and idx-node, fail only when a block reaches such a handler, so a project whose
 * misnamed handler never fires (SubQuery's Multi-Chain/safe starter names `handleProxyCreation_1_1_0` and exports
 * `handleProxyCreation_1_1_1`) runs on both.
 */
export function unexportedHandlers(projects: readonly LoadedProject[], bundles: readonly BundleExports[]): string[] {
  const problems: string[] = [];
  for (const project of projects) {
    const sources = [
      ...project.manifest.dataSources.map((d, i) => ({ at: `dataSources[${i}]`, mapping: d.mapping })),
      ...project.manifest.templates.map((d, i) => ({ at: `templates[${i}]`, mapping: d.mapping })),
    ];
    for (const { at, mapping } of sources) {
      const file = resolve(project.root, mapping.file);
      const bundle = bundles.find((b) => b.file === file) ?? bundles.find((b) => b.name === basename(file).replace(/\.[mc]?js$/, ''));
      if (bundle === undefined) continue;
      // `export *` from a module rollup cannot see into leaves the names unknown: idx-node warns of them at start
      if (bundle.exports.some((e) => e.startsWith('*'))) continue;
      const exported = new Set(bundle.exports);
      for (const [j, h] of mapping.handlers.entries()) {
        if (exported.has(h.handler)) continue;
        problems.push(
          `${relative(process.cwd(), project.manifestPath) || project.manifestPath}: ${at}.mapping.handlers[${j}].handler "${h.handler}" is not exported by ` +
            `${relative(process.cwd(), bundle.file) || bundle.file}${didYouMean(h.handler, bundle.exports)}`,
        );
      }
    }
  }
  return problems;
}
