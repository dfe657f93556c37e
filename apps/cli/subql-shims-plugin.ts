import type { Plugin } from 'rollup';

import { SUBQL_TESTING_SHIM } from '../../domain/project/subql-testing-shim.ts';
import { SUBQL_TYPE_SHIMS, TYPE_ONLY_PACKAGES } from '../../domain/project/subql-type-shims.ts';

const PREFIX = '\0idx-subql-shim:';
const TESTING = '\0idx-subql-testing';

/**
 * Resolves `@subql/types`, `@subql/types-core` and `@subql/types-ethereum` (and their subpaths)
 * to small virtual modules, whether or not the packages are installed: their real code pulls in
 * ethers and Node APIs that the sandbox does not have. `@subql/testing` becomes its `subqlTest`
 * alone (with idx's `subqlRangeTest`), for the test bundles.
 */
export function subqlShimsPlugin(): Plugin {
  return {
    name: 'idx-subql-shims',
    resolveId(source) {
      if (TYPE_ONLY_PACKAGES.some((p) => p.test(source))) return PREFIX + source;
      if (/^@subql\/testing(?:\/.*)?$/.test(source)) return TESTING;
      const pkg = /^(@subql\/types(?:-core|-ethereum)?)(?:\/.*)?$/.exec(source)?.[1];
      return pkg === undefined ? null : PREFIX + pkg;
    },
    load(id) {
      if (id === TESTING) return { code: SUBQL_TESTING_SHIM };
      if (!id.startsWith(PREFIX)) return null;
      const shim = SUBQL_TYPE_SHIMS[id.slice(PREFIX.length)] ?? {};
      // syntheticNamedExports: any named import reads a property of the default export, so an
      // import of a name the shim lacks gives undefined instead of failing the build.
      return { code: `export default ${JSON.stringify(shim)};`, syntheticNamedExports: true };
    },
  };
}
