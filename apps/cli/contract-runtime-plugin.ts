import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'rollup';
import { IdxError } from '../../domain/errors.ts';

/** The module the generated contract factories import and `idx build` resolves to the contract runtime (contract-runtime.ts). */
export const CONTRACT_RUNTIME_MODULE = 'idx:contract-runtime';

/**
 * Resolves `idx:contract-runtime`, which the generated contract factories import, to idx's own
 * contract-runtime module; its imports (viem) then resolve from idx's node_modules, so the
 * project needs nothing installed. The sources run from a checkout, the compiled .js from dist.
 */
export function contractRuntimePlugin(): Plugin {
  return {
    name: 'idx-contract-runtime',
    resolveId(source) {
      if (source !== CONTRACT_RUNTIME_MODULE) return null;
      for (const ext of ['.ts', '.js']) {
        const file = fileURLToPath(new URL(`./contract-runtime${ext}`, import.meta.url));
        if (existsSync(file)) return file;
      }
      throw new IdxError(
        'IDX_INSTALL_INCOMPLETE',
        `idx's contract runtime (contract-runtime.js beside ${fileURLToPath(import.meta.url)}) is missing; reinstall idx`,
      );
    },
  };
}
