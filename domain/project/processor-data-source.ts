import type { DataSource } from './project-model.ts';

/**
 * A custom data source (SubQuery's `substrate/FrontierEvm`, …) as SubQuery's node hands it to its processor:
 * the manifest's data source with the processor's and the assets' files made absolute. Plain data,
 * to cross into the sandbox; `assets` is a list of entries there made a `Map` again, as processors
 * read it (`ds.assets.get(name)`).
 */
export interface ProcessorDataSource {
  kind: string;
  startBlock: number;
  endBlock?: number;
  processor: { file: string; options?: Record<string, unknown> };
  assets: [name: string, asset: { file: string }][];
  mapping: { file: string; handlers: { kind: string; handler: string; filter?: Record<string, unknown> }[] };
}

/** The processor's view of a custom data source; `absolute` resolves a project-relative file. */
export function processorDataSourceOf(ds: DataSource, absolute: (file: string) => string): ProcessorDataSource {
  const out: ProcessorDataSource = {
    kind: ds.kind,
    startBlock: ds.startBlock,
    processor: { file: absolute(ds.processor!.file), ...(ds.processor!.options !== undefined && { options: structuredClone(ds.processor!.options) }) },
    assets: Object.entries(ds.assets).map(([name, { file }]) => [name, { file: absolute(file) }]),
    mapping: {
      file: ds.mapping.file,
      handlers: ds.mapping.handlers.map((h) => {
        if (h.kind !== 'custom') throw new Error(`${h.kind} is not a handler of a custom data source`);
        return { kind: h.processorKind, handler: h.handler, ...(h.filter !== undefined && { filter: structuredClone(h.filter) }) };
      }),
    },
  };
  if (ds.endBlock !== undefined) out.endBlock = ds.endBlock;
  return out;
}
