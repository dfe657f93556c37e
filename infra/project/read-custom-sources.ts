import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { IdxError } from '../../domain/errors.ts';
import { processorDataSourceOf } from '../../domain/project/processor-data-source.ts';
import { isCustomDataSource, type DataSource, type Template } from '../../domain/project/project-model.ts';
import type { CustomSourcesInstall } from '../sandbox/isolate/wire.ts';
import type { LoadedProject } from './load-project.ts';

/**
 * The custom data sources' processors (e.g. `./node_modules/@subql/frontier-evm-processor/dist/bundle.js`)
 * and assets, read for the sandbox, with the manifest's custom data sources for their processors to
 * check at start (as SubQuery's node checks its data sources, not its templates). Undefined when
 * the project has none.
 */
export async function readCustomSources(project: LoadedProject): Promise<CustomSourcesInstall | undefined> {
  const { root, manifest, manifestPath } = project;
  const absolute = (file: string) => resolve(root, file);
  const listed = [
    ...manifest.dataSources.map((ds, i) => ({ ds, path: `dataSources[${i}]` })),
    ...manifest.templates.map((ds, i) => ({ ds: { ...ds, startBlock: 0 } as DataSource, path: `templates[${i}]` })),
  ].filter(({ ds }) => isCustomDataSource(ds));
  if (listed.length === 0) return undefined;
  const processors: Record<string, string> = {};
  const assets: Record<string, string> = {};
  for (const { ds, path } of listed) {
    const file = absolute(ds.processor!.file);
    processors[file] ??= await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(ds.processor!.file)?.[1];
      throw new IdxError(
        'PROJECT_INCOMPLETE',
        `${manifestPath}: ${path}.processor.file ${ds.processor!.file} cannot be read (${err.code ?? err.message})` +
          (pkg === undefined ? '' : `: install the processor with npm install ${pkg} in ${root}`),
      );
    });
    for (const [name, asset] of Object.entries((ds as DataSource | Template).assets)) {
      const at = absolute(asset.file);
      assets[at] ??= await readFile(at, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new IdxError('PROJECT_INCOMPLETE', `${manifestPath}: ${path}.assets.${name}.file ${asset.file} cannot be read (${err.code ?? err.message})`);
      });
    }
  }
  const sources = listed.filter(({ path }) => path.startsWith('dataSources')).map(({ ds, path }) => ({ path, ds: processorDataSourceOf(ds, absolute) }));
  return { processors, assets, sources };
}
