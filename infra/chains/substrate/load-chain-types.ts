import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, relative, resolve } from 'node:path';
import type { RegisteredTypes } from '@polkadot/types/types';
import { chainTypesProblems } from '../../../domain/chains/substrate/check-chain-types.ts';
import { IdxError, ValidationError } from '../../../domain/errors.ts';
import { parseJsonText, parseYamlText } from '../../project/parse-data-file.ts';
import { evaluateChainTypes } from '../../sandbox/evaluate-chain-types.ts';
import type { PreludeCache } from '../../sandbox/create-prelude-cache.ts';
import type { ChainTypesSource } from '../../sandbox/isolate/wire.ts';
import { HASHER_NAMES, withHashers } from './create-runtime-registry.ts';

export interface LoadedChainTypes {
  /** for the node's registries: the chain types as plain data (a bundle's hasher function is the sandbox's alone) */
  registry: RegisteredTypes;
  /** for the mappings' sandbox, which makes its own registries with them */
  sandbox: ChainTypesSource;
}

/**
 * The manifest's `network.chaintypes.file`, loaded as SubQuery loads it: `.json`, `.yaml` and `.yml`
 * parsed; `.js` and `.cjs` evaluated in a sandbox (infra/sandbox/evaluate-chain-types.ts) for their
 * default export; any other file refused. The value must be what SubQuery accepts (an object with
 * `types`, `typesAlias`, `typesBundle`, `typesChain` and/or `typesSpec`, each an object) in a shape
 * @polkadot/api can use.
 */
export async function loadChainTypes(
  project: { root: string; manifestPath: string },
  file: string,
  options: { timeoutMs?: number; prelude?: PreludeCache } = {},
): Promise<LoadedChainTypes> {
  const path = resolve(project.root, file);
  const named = `${project.manifestPath}: network.chaintypes.file ${file}`;
  if (!existsSync(path) || !statSync(path).isFile()) {
    const hint = /^(\.\/)?dist\//.test(file) ? ' (is the project built? idx build writes dist/ from package.json "exports")' : '';
    throw new IdxError('PROJECT_INCOMPLETE', `${named} does not exist${hint}`);
  }
  const ext = extname(path).toLowerCase();
  let value: unknown;
  let functions: readonly string[] = [];
  let sandbox: ChainTypesSource;
  if (ext === '.json' || ext === '.yaml' || ext === '.yml') {
    const text = await readFile(path, 'utf8');
    value = (ext === '.json' ? parseJsonText(text, path) : parseYamlText(text, path)).value;
    sandbox = { file, value };
  } else if (ext === '.js' || ext === '.cjs') {
    const loaded = await evaluateChainTypes({ root: project.root, file: path, label: named, ...options });
    ({ value, functions } = loaded);
    sandbox = { file, entry: path, modules: loaded.modules, resolutions: loaded.resolutions };
  } else {
    const built =
      ext === '.ts' ? '; for a TypeScript file, export it from package.json "exports" so that idx build writes dist/<name>.js, and name that file' : '';
    throw new IdxError(
      'CHAIN_TYPES_INVALID',
      `${named}: a ${ext || 'file without extension'} file cannot be chain types: use .json, .yaml, .yml, .js or .cjs${built}`,
    );
  }
  const problems = chainTypesProblems(value, { functions, hasherNames: HASHER_NAMES });
  if (problems.length > 0) throw new ValidationError(`${relative(project.root, path)} (${project.manifestPath}: network.chaintypes.file)`, problems);
  return { registry: withHashers(value as RegisteredTypes)!, sandbox };
}
