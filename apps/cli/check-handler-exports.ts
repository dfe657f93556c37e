import { basename, relative, resolve } from 'node:path';
import { didYouMean } from '../../domain/closest-name.ts';
import { IdxError } from '../../domain/errors.ts';
import type { LoadedProject } from '../../infra/project/load-project.ts';

/** A bundle `idx build` wrote, with the names it exports. */
export interface BundleExports {
  /** `index`, or the key of a package.json `exports` entry */
  name: string;
  file: string;
  exports: readonly string[];
}

/**
 * Refuses a build whose bundles lack a handler the manifest names (idx-node would refuse it at
 * start, after the user has moved on): each data source's and template's handlers against the bundle
 * its `mapping.file` names (the output file itself, or the entry of that name, e.g. `dist/index.js` →
 * `index`). A name one edit from an export gets a "did you mean". A mapping file this build did not
 * write is left to idx-node.
 */
export function checkHandlerExports(projects: readonly LoadedProject[], bundles: readonly BundleExports[]): void {
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
      // `export *` from a module rollup cannot see into leaves the names unknown: idx-node checks them
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
  if (problems.length > 0) {
    throw new IdxError(
      'HANDLER_NOT_FOUND',
      `the manifest names handlers the built code does not export:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
        'Export each handler from src/index.ts (export * from "./mappings/…"), or fix its name in the manifest.',
    );
  }
}
