import type { Plugin } from 'rollup';

/**
 * The run-time values of SubQuery's type packages that mappings may import; everything else in
 * them is types only, which swc removes. Mirrors the shims infra/project/compile-project-ts.ts
 * gives project.ts, so a value import from these packages bundles without them installed.
 */
const SHIMS: Record<string, Record<string, unknown>> = {
  '@subql/types-ethereum': {
    EthereumDatasourceKind: { Runtime: 'ethereum/Runtime' },
    EthereumHandlerKind: { Block: 'ethereum/BlockHandler', Call: 'ethereum/TransactionHandler', Event: 'ethereum/LogHandler' },
  },
  '@subql/types-core': {},
  '@subql/types': {},
};

const PREFIX = '\0idx-subql-shim:';

/**
 * Resolves `@subql/types`, `@subql/types-core` and `@subql/types-ethereum` (and their subpaths)
 * to small virtual modules, whether or not the packages are installed: their real code pulls in
 * ethers and Node APIs that the sandbox does not have.
 */
export function subqlShimsPlugin(): Plugin {
  return {
    name: 'idx-subql-shims',
    resolveId(source) {
      const pkg = /^(@subql\/types(?:-core|-ethereum)?)(?:\/.*)?$/.exec(source)?.[1];
      return pkg === undefined ? null : PREFIX + pkg;
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const shim = SHIMS[id.slice(PREFIX.length)] ?? {};
      // syntheticNamedExports: any named import reads a property of the default export, so an
      // import of a name the shim lacks gives undefined instead of failing the build.
      return { code: `export default ${JSON.stringify(shim)};`, syntheticNamedExports: true };
    },
  };
}
