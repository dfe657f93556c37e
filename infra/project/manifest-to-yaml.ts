import { stringify } from 'yaml';
import type { EndpointConfig, ProjectManifest } from '../../domain/project/project-model.ts';
import { toPlainData } from './to-plain-data.ts';

/**
 * A manifest as `project.yaml` text, for `idx build` to write next to the bundle. Takes the raw
 * manifest (e.g. what project.ts exported) or a validated ProjectManifest; the latter's
 * `network.endpoints` is written back as SubQuery's `network.endpoint` so SubQuery tools read it too.
 */
export function manifestToYaml(manifest: ProjectManifest | unknown): string {
  const plain = toPlainData(manifest) as Record<string, unknown>;
  const network = plain?.network as Record<string, unknown> | undefined;
  if (network && Array.isArray(network.endpoints) && network.endpoint === undefined) {
    const { endpoints, chainId, ...rest } = network as { endpoints: EndpointConfig[]; chainId: unknown };
    plain.network = endpoints.length === 0 ? { chainId, ...rest } : { chainId, endpoint: endpointField(endpoints), ...rest };
  }
  // lineWidth 0: never fold long strings (descriptions, URLs) across lines
  return stringify(plain, { lineWidth: 0 });
}

function endpointField(endpoints: EndpointConfig[]): string[] | Record<string, { headers?: Record<string, string>; batchSize?: number }> {
  if (endpoints.every((e) => e.headers === undefined && e.batchSize === undefined)) return endpoints.map((e) => e.url);
  return Object.fromEntries(endpoints.map(({ url, ...config }) => [url, config]));
}
