import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { REPO } from './idx-programs.ts';
import { TEST_GROUPS, type TestGroup } from './test-groups.ts';

/** Folders whose test files tap never runs (by default it leaves out fixture, fixtures and dist folders), and installed packages. */
export const NOT_RUN_FOLDERS = /(^|\/)(node_modules|fixtures?|dist)\//;

/**
 * The test files (`*.test.ts`) under `folders` of the repository, sorted, as paths from its root;
 * `except` leaves out files or folders under them.
 */
function testFilesUnder(folders: readonly string[], except: readonly string[] = []): string[] {
  const excluded = (file: string) => NOT_RUN_FOLDERS.test(file) || except.some((e) => file === e || file.startsWith(`${e}/`));
  return folders
    .flatMap((folder) =>
      readdirSync(join(REPO, folder), { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.test.ts'))
        .map((name) => relative(REPO, join(REPO, folder, name))),
    )
    .filter((file) => !excluded(file))
    .sort();
}

/** The test files a group runs (test-groups.ts). */
export function groupTestFiles(group: TestGroup): string[] {
  const { folders, except = [] } = TEST_GROUPS[group] as { folders: readonly string[]; except?: readonly string[] };
  return testFilesUnder(folders, except);
}

/**
 * Runs a group's test files one after the other in this process, as tap would run each in its own:
 * a file is loaded once the tests of the one before it have all run, and what it gives `t.teardown`
 * at its top level is torn down then, before the next file starts. A process costs ~0.9 CPU-s to start
 * with tsx and tap, and most unit test files take far less than that to run, so one process for many
 * is most of the saving.
 */
export async function runTogether(group: TestGroup): Promise<void> {
  // tap ends its root test once it is idle for a moment if the file gave it a teardown; loading the
  // next file leaves it idle longer than that, so the files' root teardowns are kept here instead
  let teardowns: (() => unknown)[] = [];
  t.teardown = t.after = (fn: () => unknown) => void teardowns.push(fn);
  for (const file of groupTestFiles(group)) {
    try {
      // at the top level, not in a subtest: a file may await its own tests at its top level
      await import(pathToFileURL(join(REPO, file)).href);
    } catch (err) {
      t.fail(`${file} cannot be loaded`, { error: err });
    }
    // queued after the file's own tests: runs once they all have, then the next file loads
    await t.test(`${file}: its tests have run and its top-level teardowns`, async () => {
      const now = teardowns.reverse();
      teardowns = [];
      for (const fn of now) await fn();
    });
  }
}
