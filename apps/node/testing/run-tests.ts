import { relative } from 'node:path';
import { familyOfKinds } from '../../../domain/chains/chain-family.ts';
import { IdxError } from '../../../domain/errors.ts';
import { isRangeTest, type TestCase } from '../../../domain/testing/range-test.ts';
import { snapshotLine } from '../../../domain/testing/snapshot-report.ts';
import { checkPassed, snapshotPassed, testFailed, type TestOutcome } from '../../../domain/testing/test-outcome.ts';
import { checkLine, failureDetails, testLine, totals } from '../../../domain/testing/test-report.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { findMultichain, loadProject } from '../../../infra/project/load-project.ts';
import { readProjectFiles } from '../../../infra/project/read-project-files.ts';
import { tapedClient } from '../../../infra/rpc/taped-client.ts';
import { nodeFamilies, nodeVariants, type NodeVariant, type NodeVariantName } from '../families/registry.ts';
import { networkEndpoints, type NodeOptions } from '../start-up/node-options.ts';
import { projectSchemaName } from '../start-up/open-project-store.ts';
import { withRunnerOptions } from '../start-up/runner-options.ts';
import { findTestFiles } from './find-test-files.ts';
import { loadTestCases } from './load-test-cases.ts';
import { runRangeTest } from './run-range-test.ts';
import { runSubqlTest, type TestRunContext } from './run-subql-test.ts';
import { readRecording, recordingPathOf, writeRecording } from './test-recordings.ts';
import { createTestTapes, type TapedFile, type TestTapes } from './test-tapes.ts';

export interface RunTestsInput {
  options: NodeOptions;
  /** `--test-filter`: only the test files whose name contains it */
  testFilter?: string;
  /** `--record`: ask the endpoint and keep its answers beside each test file */
  record?: boolean;
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
  const taped = await tapedFiles(project.root, testFiles, input.record === true);
  const tapes = createTestTapes({ record: input.record === true, chainId: network.chainId, projectRoot: project.root, files: taped });
  const chain = await nodeFamilies[familyName].connect({
    network,
    project,
    options,
    log: input.logger.child('node'),
    signal: input.signal,
    version: input.version,
    clientLayer: (client) => tapedClient(client, tapes.mode),
  });
  const ctx: TestRunContext = {
    // blocks are fetched in this thread, where the tapes are
    options: { ...options, workers: 0 },
    project,
    files: await readProjectFiles(project),
    chain,
    chainId: network.chainId,
    schema: `test-${projectSchemaName(options, project)}`,
    env: input.env,
    logger: input.logger,
  };
  const loaded = [];
  for (const file of taped) loaded.push({ file, tests: await loadTestCases(file.file, chain, options, network.chainId, input.logger) });
  log.info(`Found ${loaded.flatMap((l) => l.tests).length} tests in ${testFiles.map((f) => relative(project.root, f)).join(', ')}`);

  const outcomes: TestOutcome[] = [];
  for (const { file, tests } of loaded) {
    tapes.useFile(file);
    const shown = relative(project.root, file.recordingPath);
    if (input.record !== true && file.recording !== undefined) log.info(`Replaying the chain from ${shown}`);
    for (const test of tests) {
      if (input.signal.aborted) break;
      const run = () =>
        isRangeTest(test)
          ? runRangeTest(ctx, test, { file: file.file, updateSnapshots: input.updateSnapshots === true, signal: input.signal })
          : runSubqlTest(ctx, test);
      outcomes.push(await runOne(test, run, tapes, input.logger.child('test-runner')));
    }
    if (input.record === true && !input.signal.aborted) {
      const recorded = tapes.recorded();
      await writeRecording(file.recordingPath, recorded);
      log.info(`Recorded ${recorded.answers.size} chain calls to ${shown}`);
    }
  }
  return report(outcomes, log);
}

/** Each test file with where its recording lives and, unless it is being recorded again, the recording. */
async function tapedFiles(root: string, testFiles: readonly string[], record: boolean): Promise<TapedFile[]> {
  return Promise.all(
    testFiles.map(async (file) => {
      const recordingPath = recordingPathOf(root, file);
      return { file, recordingPath, recording: record ? undefined : await readRecording(recordingPath) };
    }),
  );
}

async function runOne(test: TestCase, run: () => Promise<TestOutcome>, tapes: TestTapes, log: Logger): Promise<TestOutcome> {
  log.info(`Starting test: ${test.name}`);
  const ran = await run();
  // a call the recording lacked fails the test even when the mapping caught the error
  const misses = tapes.takeMisses();
  const outcome = misses.length === 0 ? ran : testFailed(test, 'recording', new Error(misses.join('\n')));
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
