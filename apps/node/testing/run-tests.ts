import { relative } from 'node:path';
import { familyOfKinds } from '../../../domain/chains/chain-family.ts';
import { IdxError } from '../../../domain/errors.ts';
import { isRangeTest, type TestCase } from '../../../domain/testing/range-test.ts';
import { snapshotLine } from '../../../domain/testing/snapshot-report.ts';
import { checkPassed, snapshotPassed, type TestOutcome } from '../../../domain/testing/test-outcome.ts';
import { checkLine, failureDetails, testLine, totals } from '../../../domain/testing/test-report.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { findMultichain, loadProject } from '../../../infra/project/load-project.ts';
import { readProjectFiles } from '../../../infra/project/read-project-files.ts';
import { nodeFamilies, nodeVariants, type NodeVariant, type NodeVariantName } from '../families/registry.ts';
import { networkEndpoints, type NodeOptions } from '../start-up/node-options.ts';
import { projectSchemaName } from '../start-up/open-project-store.ts';
import { withRunnerOptions } from '../start-up/runner-options.ts';
import { findTestFiles } from './find-test-files.ts';
import { loadTestCases } from './load-test-cases.ts';
import { runRangeTest } from './run-range-test.ts';
import { runSubqlTest, type TestRunContext } from './run-subql-test.ts';

export interface RunTestsInput {
  options: NodeOptions;
  /** `--test-filter`: only the test files whose name contains it */
  testFilter?: string;
  /** `--update-snapshots`: range tests rewrite the snapshots they differ from instead of failing */
  updateSnapshots?: boolean;
  variant?: NodeVariantName;
  logger: Logger;
  version: string;
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
}

const DOCS = 'docs/testing.md';

/**
 * `idx-node test`: SubQuery's `subql-node test` on idx. Runs every `subqlTest` of the project's
 * built test files (dist/**\/*.test.js, made by `idx build` from src/test), each against the real
 * block, and prints per check, per test and a summary as SubQuery does. Returns the number of
 * failing tests (the program exits non-zero when there are any).
 */
export async function runTests(input: RunTestsInput): Promise<number> {
  const log = input.logger.child('subql-testing');
  if (input.options.idx === undefined) throw new IdxError('PROJECT_NOT_GIVEN', 'no project given: use -f, --idx <path> or -c, --config <file>');
  if ((await findMultichain(input.options.idx)) !== undefined)
    throw new IdxError('BAD_ARGUMENT', "idx-node test runs one project: give one chain's manifest with -f, not the multichain manifest");
  const project = await loadProject(input.options.idx, { networkEndpoints: networkEndpoints(input.options) });
  const { options } = withRunnerOptions(input.options, project.manifest, project.manifestPath);
  const network = project.manifest.network;
  if (network === undefined || network.endpoints.length === 0)
    throw new IdxError('NETWORK_MISSING', `${project.manifestPath}: the manifest needs network.chainId and network.endpoint (or give --network-endpoint)`);

  const testFiles = await findTestFiles(project.root, input.testFilter);
  log.info(`Found ${testFiles.length} test files`);
  if (testFiles.length === 0) {
    log.warn(`No tests found. Write src/test/<name>.test.ts files with @subql/testing's subqlTest and run idx build first (${DOCS})`);
    return 0;
  }
  const variant = nodeVariants[input.variant ?? 'base'] as NodeVariant;
  const familyName = familyOfKinds(
    project.manifest.dataSources.map((d) => d.kind),
    project.manifestPath,
    variant.only === undefined ? undefined : { program: variant.program, family: variant.only },
  );
  const files = await readProjectFiles(project);
  const chain = await nodeFamilies[familyName].connect({
    network,
    project,
    options,
    log: input.logger.child('node'),
    signal: input.signal,
    version: input.version,
  });
  const ctx: TestRunContext = {
    options,
    project,
    files,
    chain,
    chainId: network.chainId,
    schema: `test-${projectSchemaName(options, project)}`,
    env: input.env,
    logger: input.logger,
  };
  const tests: { file: string; test: TestCase }[] = [];
  for (const file of testFiles) for (const test of await loadTestCases(file, chain, options, network.chainId, input.logger)) tests.push({ file, test });
  log.info(`Found ${tests.length} tests in ${testFiles.map((f) => relative(project.root, f)).join(', ')}`);

  const outcomes: TestOutcome[] = [];
  for (const { file, test } of tests) {
    if (input.signal.aborted) break;
    const run = () =>
      isRangeTest(test) ? runRangeTest(ctx, test, { file, updateSnapshots: input.updateSnapshots === true, signal: input.signal }) : runSubqlTest(ctx, test);
    outcomes.push(await runOne(test.name, run, input.logger.child('test-runner')));
  }
  return report(outcomes, log);
}

async function runOne(name: string, run: () => Promise<TestOutcome>, log: Logger): Promise<TestOutcome> {
  log.info(`Starting test: ${name}`);
  const outcome = await run();
  if ('checks' in outcome) {
    for (const c of outcome.checks) {
      if (checkPassed(c)) log.info(checkLine(c));
      else log.warn(checkLine(c));
    }
    if (outcome.snapshot !== undefined) {
      if (snapshotPassed(outcome.snapshot)) log.info(snapshotLine(outcome.snapshot));
      else log.warn(snapshotLine(outcome.snapshot));
    }
    log.info(testLine(outcome));
  } else log.warn(testLine(outcome));
  return outcome;
}

/** The summary, as SubQuery prints it; the number of failing tests. */
function report(outcomes: readonly TestOutcome[], log: Logger): number {
  const details = failureDetails(outcomes);
  if (details.length > 0) {
    log.warn('Failed tests summary:');
    for (const d of details) log.warn(d);
  }
  const { total, passing, failing } = totals(outcomes);
  log.info(`Total tests: ${total}`);
  log.info(`Passing tests: ${passing}`);
  log.info(`Failing tests: ${failing}`);
  return failing;
}
