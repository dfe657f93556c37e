import { ValidationError, type Problem } from '../errors.ts';
import { formatFieldPath, SPEC_VERSION, type FieldPath, type LocateField } from './validate-manifest.ts';

/**
 * SubQuery's `subquery-multichain.yaml`: one project per chain, each a normal manifest, sharing
 * the schema and the mapping, indexed into one database schema.
 */
export interface MultichainManifest {
  specVersion: string;
  /** the chain manifests, as written: relative to the multichain manifest's folder */
  projects: string[];
}

/** As SubQuery tells them apart: a manifest with `projects` and no `dataSources` lists chain projects. */
export function isMultichainManifest(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'projects' in raw && !('dataSources' in raw);
}

/** Checks a multichain manifest; every problem with its field path, in one ValidationError. */
export function validateMultichainManifest(raw: unknown, source: string, options: { locate?: LocateField } = {}): MultichainManifest {
  const problems: Problem[] = [];
  const report = (path: FieldPath, message: string) => {
    const at = options.locate?.(path);
    problems.push(at ? { path: formatFieldPath(path), message, line: at.line, column: at.column } : { path: formatFieldPath(path), message });
  };
  const root = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (root.specVersion === undefined) report(['specVersion'], 'required');
  else if (String(root.specVersion) !== SPEC_VERSION) report(['specVersion'], `expected "${SPEC_VERSION}"`);
  const projects: string[] = [];
  if (!Array.isArray(root.projects)) report(['projects'], 'expected a list of the chain manifests, e.g. [mainnet.yaml, polygon.yaml]');
  else {
    if (root.projects.length === 0) report(['projects'], 'expected at least one chain manifest');
    root.projects.forEach((p, i) => {
      if (typeof p !== 'string' || p.trim() === '') report(['projects', i], 'expected the path of a chain manifest');
      else if (projects.includes(p)) report(['projects', i], `"${p}" is listed twice`);
      else projects.push(p);
    });
  }
  if (problems.length > 0) throw new ValidationError(source, problems);
  return { specVersion: SPEC_VERSION, projects };
}
