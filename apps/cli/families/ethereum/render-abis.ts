import { readFile } from 'node:fs/promises';
import { basename, relative, resolve } from 'node:path';
import { IdxError, problemDetails, ValidationError } from '../../../../domain/errors.ts';
import { checkValueDepth, INPUT_LIMITS } from '../../../../domain/input-limits.ts';
import { parseJsonValue } from '../../../../infra/project/parse-data-file.ts';
import { checkAbiNames } from '../../codegen-names.ts';
import type { FamilyCodegenInput } from '../cli-family.ts';
import { abiInterfaceName, abiOf, renderAbiInterface } from './codegen-abi.ts';
import { renderContract, renderContractsIndex } from './codegen-contracts.ts';

/**
 * Per distinct JSON ABI asset of the data sources and templates (of every chain, in a multichain
 * project): `abi-interfaces/<Name>.ts` (typed logs and transactions) and `contracts/` (typed
 * contract factories for calls through `api`). Two files giving one name must hold the same ABI.
 */
export async function renderAbis({ projects, multichain, globals }: FamilyCodegenInput): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const done = new Map<string, { name: string; abi: string }>(); // absolute file → interface name and its ABI as JSON
  const all = projects.flatMap((p) => {
    const at = multichain ? `${basename(p.manifestPath)}: ` : '';
    return [
      ...p.manifest.dataSources.map((ds, i) => ({ ds, path: `${at}dataSources[${i}]`, root: p.root })),
      ...p.manifest.templates.map((ds, i) => ({ ds, path: `${at}templates[${i}]`, root: p.root })),
    ];
  });
  for (const { ds, path, root } of all) {
    for (const [assetName, asset] of Object.entries(ds.assets)) {
      const file = resolve(root, asset.file);
      if (done.has(file) || !/\.json$/i.test(file)) continue;
      const isAbi = ds.options?.abi === assetName;
      const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new IdxError('ASSET_NOT_FOUND', `${path}.assets.${assetName}: cannot read ${file}: ${err.code ?? err.message}`, { cause: err });
      });
      let json: unknown;
      try {
        json = parseJsonValue(text, file, INPUT_LIMITS.maxAbiBytes);
      } catch (err) {
        if (!isAbi) continue;
        if (!(err instanceof ValidationError)) throw err;
        throw new IdxError('ABI_INVALID', `${path}.assets.${assetName}: ${file} cannot be read as JSON: ${problemDetails(err)}`, { cause: err });
      }
      const abi = abiOf(json);
      if (abi === undefined) {
        if (!isAbi) continue; // some other JSON asset
        throw new IdxError(
          'ABI_INVALID',
          `${path}.assets.${assetName}: ${file} is not an ABI (expected a JSON array of ABI items, or an object with an "abi" array)`,
        );
      }
      checkValueDepth(abi, relative(root, file) || file);
      checkAbiNames(abi, relative(root, file) || file);
      const name = abiInterfaceName(file);
      if (globals.has(name)) {
        throw new IdxError('ABI_NAME_CLASH', `${file} gives the ABI interface name ${name}, a name the generated code uses; rename the file`);
      }
      const clash = [...done.entries()].find(([, d]) => d.name === name);
      done.set(file, { name, abi: JSON.stringify(abi) });
      if (clash !== undefined) {
        // Chains often carry their own copy of one contract's ABI: the same ABI is one interface.
        if (clash[1].abi === JSON.stringify(abi)) continue;
        throw new IdxError(
          'ABI_NAME_CLASH',
          `${file} and ${clash[0]} both give the ABI interface name ${name} but hold different ABIs; rename one of the files`,
        );
      }
      files.set(`abi-interfaces/${name}.ts`, renderAbiInterface(abi, file));
      for (const [path, text] of renderContract(abi, name)) files.set(path, text);
    }
  }
  const names = [...new Set([...done.values()].map((d) => d.name))];
  if (names.length > 0) for (const [path, text] of renderContractsIndex(names)) files.set(path, text);
  return files;
}
