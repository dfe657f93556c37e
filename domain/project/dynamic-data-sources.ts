import { IdxError } from '../errors.ts';
import type { DataSource, Template } from './project-model.ts';

/** A data source created by a mapping, as kept in `_metadata.dynamicDatasources` (SubQuery's shape). */
export interface DynamicDataSourceRecord {
  templateName: string;
  /** the block whose handler created it: it applies from that block on */
  startBlock: number;
  args?: Record<string, unknown>;
}

/** `createDynamicDatasource(name, args)` → a data source: the template with `args` merged into its `options`. */
export function instantiateTemplate(templates: readonly Template[], record: DynamicDataSourceRecord): DataSource {
  const template = templates.find((t) => t.name === record.templateName);
  if (template === undefined) {
    const names = templates.map((t) => t.name);
    throw new IdxError(
      'TEMPLATE_NOT_FOUND',
      `createDynamicDatasource("${record.templateName}"): no such template in the manifest${names.length > 0 ? `; templates: ${names.join(', ')}` : ''}`,
    );
  }
  const { name: _name, ...rest } = template;
  // a custom data source's arguments go to its processor, as SubQuery's node merges them
  if (rest.processor !== undefined)
    return { ...rest, startBlock: record.startBlock, processor: { ...rest.processor, options: { ...rest.processor.options, ...record.args } } };
  const options = { ...template.options, ...(record.args as DataSource['options']) };
  if (options.address !== undefined && typeof options.address === 'string') options.address = options.address.toLowerCase();
  return { ...rest, startBlock: record.startBlock, options };
}
