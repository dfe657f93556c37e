import { existsSync } from 'node:fs';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { buildProject } from '../../apps/cli/build-project.ts';
import { codegen } from '../../apps/cli/codegen.ts';
import type { Reporter } from '../../apps/cli/reporter.ts';
import { CHOPSTICKS_GENESIS_HASH } from '../../devchain/start-substrate-chain.ts';
import { MANIFEST_FILE_NAMES } from '../../infra/project/load-project.ts';
import { formatDump, type SchemaDump } from './entity-table-dump.ts';
import { REPO } from './idx-programs.ts';
import type { Teardown } from './teardown.ts';
import type { SubstrateFixture } from './substrate-fixtures.ts';

export const SUBSTRATE_PROJECTS = join(REPO, 'test', 'fixtures', 'substrate-projects');
/** the manifest a prepared copy runs from: the fixture's, pointed at the local chain */
export const LOCAL_MANIFEST = 'project-local.yaml';

export interface PrepareOptions {
  /**
   * where the packages fixtures need beyond idx's own are installed aside, one folder per fixture
   * (`<deps>/<name>/node_modules`, see scripts/record-substrate-references.ts); default: the
   * IDX_FIXTURE_DEPS environment variable. Without it only idx's own packages are installed.
   */
  deps?: string;
}

export interface PreparedFixture {
  dir: string;
  /** `<dir>/project-local.yaml` */
  manifest: string;
}

/**
 * A copy of the fixture as its user has it after `npm install` (node_modules resolving to idx's own
 * packages, plus its extra ones when installed aside), then `idx codegen` and `idx build` run in it
 * (in this process, as the CLI runs them), and its manifest pointed at the local chain as a user
 * testing locally points it: chainId the local genesis hash, endpoint the local node, every data
 * source from block 1, no dictionary and no parent project. Nothing else of the project changes.
 * Throws the build's error when it fails.
 */
export async function prepareFixture(t: Teardown, fixture: SubstrateFixture, endpoint: string, options: PrepareOptions = {}): Promise<PreparedFixture> {
  const parent = await mkdtemp(join(tmpdir(), 'idx-subql-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const dir = join(parent, fixture.name);
  await cp(join(SUBSTRATE_PROJECTS, fixture.name), dir, { recursive: true, filter: (src) => !src.endsWith('reference.json') });
  await linkNodeModules(dir, fixture, options.deps ?? process.env.IDX_FIXTURE_DEPS);
  const reporter = quietReporter();
  // as its user runs it: `idx codegen` in the folder (a multichain manifest there covers every chain's manifest)
  await codegen({ location: dir, ...(hasDefaultManifest(dir) ? {} : { manifestFile: fixture.manifest }), reporter });
  const built = await buildProject({ location: dir, reporter });
  const source = fixture.manifest.endsWith('.ts') ? built.manifest! : join(dir, fixture.manifest);
  const manifest = join(dir, LOCAL_MANIFEST);
  await writeFile(manifest, localManifest(await readFile(source, 'utf8'), endpoint));
  return { dir, manifest };
}

const hasDefaultManifest = (dir: string) => MANIFEST_FILE_NAMES.some((name) => existsSync(join(dir, name)));

/** The manifest text pointed at the local chain (see prepareFixture). */
export function localManifest(text: string, endpoint: string): string {
  const manifest = parse(text) as {
    network?: Record<string, unknown>;
    parent?: unknown;
    dataSources?: { startBlock?: number }[];
  };
  const network = { ...(manifest.network ?? {}) };
  delete network.genesisHash;
  delete network.dictionary;
  network.chainId = CHOPSTICKS_GENESIS_HASH;
  network.endpoint = endpoint;
  manifest.network = network;
  delete manifest.parent;
  for (const ds of manifest.dataSources ?? []) ds.startBlock = 1;
  return stringify(manifest);
}

/**
 * node_modules of the copy: idx's own packages, and, when the fixture's extra packages are installed
 * aside (PrepareOptions.deps), that folder instead (which links idx's own beside them).
 */
async function linkNodeModules(dir: string, fixture: SubstrateFixture, deps: string | undefined): Promise<void> {
  const aside = deps === undefined ? undefined : join(deps, fixture.name, 'node_modules');
  const target = aside !== undefined && existsSync(aside) ? aside : join(REPO, 'node_modules');
  await symlink(target, join(dir, 'node_modules'), 'dir');
}

/**
 * Makes a node_modules folder holding a fixture's extra packages resolve as they would once added to
 * idx's own dependencies: every package idx has is a link to idx's copy (replacing any other version
 * npm put at the top), so those packages resolve @polkadot/… to the versions idx runs.
 */
export async function linkRepoPackages(nodeModules: string): Promise<void> {
  const repo = join(REPO, 'node_modules');
  const link = async (from: string, to: string) => {
    if (existsSync(to) || (await lstat(to).catch(() => undefined))) await rm(to, { recursive: true, force: true });
    await symlink(from, to, 'dir');
  };
  for (const entry of await readdir(repo)) {
    if (entry.startsWith('.')) continue;
    const from = join(repo, entry);
    const to = join(nodeModules, entry);
    if (entry.startsWith('@') && (await lstat(from)).isDirectory()) {
      await mkdir(to, { recursive: true });
      for (const pkg of await readdir(from)) await link(join(from, pkg), join(to, pkg));
    } else await link(from, to);
  }
}

export function quietReporter(): Reporter {
  return { info: () => {}, warn: () => {} };
}

/** What @subql/node did on a fixture over the workload, as committed in `<fixture>/reference.json`. */
export interface Reference {
  recordedWith: string;
  workload: { lastBlock: number; lastHash: string };
  /** the last block it committed, and its error when it stopped on one */
  outcome: { indexedTo: number | null; error?: string };
  tables: SchemaDump;
}

export function referencePath(fixture: SubstrateFixture): string {
  return join(SUBSTRATE_PROJECTS, fixture.name, 'reference.json');
}

export async function readReference(fixture: SubstrateFixture): Promise<Reference | undefined> {
  return readReferenceFile(referencePath(fixture));
}

/** A recorded reference (of a Substrate or an EVM project), or undefined when none was recorded. */
export async function readReferenceFile(file: string): Promise<Reference | undefined> {
  return existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as Reference) : undefined;
}

export function formatReference(r: Reference): string {
  return (
    `{\n  "recordedWith": ${JSON.stringify(r.recordedWith)},\n  "workload": ${JSON.stringify(r.workload)},\n` +
    `  "outcome": ${JSON.stringify(r.outcome)},\n  "tables": ${formatDump(r.tables)}\n}\n`
  );
}
