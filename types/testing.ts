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

/**
 * idx's test over a block range: the project is indexed from `from` to `to` (both included, at most
 * 10,000 blocks) as the node indexes it, after `dependentEntities` are stored at `from`; then each of
 * `expectedEntities` is compared with its latest version and, with `snapshot: true`, every version
 * written with the test's entry in `src/test/__snapshots__/<file>.snap.json`.
 */
export declare function subqlRangeTest(
  name: string,
  options: {
    from: number;
    to: number;
    dependentEntities?: readonly object[];
    expectedEntities?: readonly object[];
    snapshot?: boolean;
  },
): void;
