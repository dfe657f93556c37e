// @subql/testing's subqlTest, for the test files of projects that do not install the package:
// idx build provides it to the tests it bundles (src/test/**/*.test.ts), and idx-node test runs them.

/**
 * A mapping test: the handler `handler` (as the manifest names it) runs on block `blockHeight` after
 * `dependentEntities` are stored; each of `expectedEntities` is then compared, field by field, with
 * the store's. Entities are made with the generated classes (`Transfer.create({...})`).
 */
export declare function subqlTest(
  name: string,
  blockHeight: number,
  dependentEntities: readonly object[],
  expectedEntities: readonly object[],
  handler: string,
): void;
