import type { DataSource, ProjectManifest, Template } from './project-model.ts';

/**
 * What a start of the node indexed with, besides schema.graphql: every handler of every data source
 * and template, with what decides which blocks it runs on and a hash of the code it runs. Kept in
 * `_metadata.idxDeployment` (idx's own key: SubQuery's node stores nothing like it) so that the next
 * start can tell an additive change from one that needs a reindex (classify-redeploy.ts).
 */
export interface DeploymentRecord {
  /** the whole mapping bundle's hash */
  bundle: string;
  handlers: HandlerBinding[];
}

export interface HandlerBinding {
  /** for messages: `dataSources[0] (ethereum/Runtime at 0x…)` or `template Pool` */
  source: string;
  /** the exported function */
  handler: string;
  /** everything but the code that decides what the handler is called with: the data source (or template) and the handler entry, as stable JSON */
  key: string;
  /** a data source's startBlock; absent for a template's handler (it runs from where a data source was made from it) */
  startBlock?: number;
  template?: string;
  /** the hash of the code the handler reaches (infra/project/handler-code-hashes.ts) */
  code: string;
}

export interface DeploymentInputs {
  /** the bundle's hash and each exported function's code hash */
  code: { bundle: string; handlers: Readonly<Record<string, string>> };
  /** a hash of the ABI a data source or template names, when it names one */
  abiHash(ds: DataSource | Template): string | undefined;
}

export function deploymentRecord(manifest: Pick<ProjectManifest, 'dataSources' | 'templates'>, inputs: DeploymentInputs): DeploymentRecord {
  const handlers: HandlerBinding[] = [];
  const add = (ds: DataSource | Template, source: string, extra: { startBlock?: number; template?: string }) => {
    const { mapping, assets: _assets, ...definition } = ds;
    for (const h of mapping.handlers) {
      const abi = inputs.abiHash(ds);
      handlers.push({
        source,
        handler: h.handler,
        key: stableJson({ source: { ...definition, ...(abi !== undefined && { abi }) }, handler: h }),
        ...extra,
        code: inputs.code.handlers[h.handler] ?? inputs.code.bundle,
      });
    }
  };
  manifest.dataSources.forEach((ds, i) =>
    add(ds, `dataSources[${i}] (${ds.kind}${ds.options?.address ? ` at ${ds.options.address}` : ''})`, { startBlock: ds.startBlock }),
  );
  for (const t of manifest.templates) add(t, `template ${t.name}`, { template: t.name });
  return { bundle: inputs.code.bundle, handlers };
}

/** JSON with object keys sorted: the same manifest read from project.ts or project.yaml gives the same text */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : typeof v === 'bigint'
        ? `${v}n`
        : v,
  );
}
