import { createHash } from 'node:crypto';
import { deploymentRecord, stableJson, type DeploymentRecord } from '../../domain/project/deployment-record.ts';
import type { LoadedProject } from './load-project.ts';
import type { ProjectFiles } from './read-project-files.ts';
import { handlerCodeHashes } from './handler-code-hashes.ts';

/** The record of the deployment being started (domain/project/deployment-record.ts): its handlers, their code and their ABIs, hashed. */
export function projectDeployment(project: LoadedProject, files: ProjectFiles): DeploymentRecord {
  const { dataSources, templates } = project.manifest;
  const names = [...new Set([...dataSources, ...templates].flatMap((ds) => ds.mapping.handlers.map((h) => h.handler)))];
  const code = handlerCodeHashes(files.code, names, new Set(files.model.entities.map((e) => e.name)));
  return deploymentRecord(project.manifest, {
    code,
    abiHash(ds) {
      const abi = files.abiOf(ds);
      return abi === undefined ? undefined : createHash('sha256').update(stableJson(abi)).digest('hex');
    },
  });
}
