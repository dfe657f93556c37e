/**
 * `@subql/testing` as idx builds it into test bundles, whether or not the package is installed:
 * `subqlTest` registers a test on the global `subqlTests`, as the package does, for idx-node test
 * to read once the bundle has loaded in the sandbox (infra/sandbox/isolate/collect-tests.ts).
 * `subqlRangeTest` is idx's own (docs/testing.md): a test over a block range, marked `kind: 'range'`
 * on the same list.
 */
export const SUBQL_TESTING_SHIM = `
export function subqlTest(name, blockHeight, dependentEntities, expectedEntities, handler) {
  const g = globalThis;
  g.subqlTests = g.subqlTests ?? [];
  g.subqlTests.push({ name, blockHeight, dependentEntities, expectedEntities, handler });
}
export function subqlRangeTest(name, options) {
  const g = globalThis;
  g.subqlTests = g.subqlTests ?? [];
  g.subqlTests.push({ kind: 'range', name, options });
}
export default { subqlTest, subqlRangeTest };
`;
