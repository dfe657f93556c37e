/**
 * The test suite's before step (.taprc `before`), run once by tap before any test file, also when
 * tap runs a single file: compiles dist/ if it is older than the sources (the tests spawn the
 * compiled programs), then, side by side, builds the starter project that most end-to-end files
 * copy, unpacks the browser tests' Chromium, and makes what idx's install makes (the sandbox's
 * bundles from these sources, PGlite's template: apps/cli/warm-caches.ts) and the template's archive
 * in the suite's scratch folder (scratch-in-memory.mjs), once: files starting together would each
 * race to make them.
 */
import { warmCaches } from '../../apps/cli/warm-caches.ts';
import { pgliteTemplateArchive } from '../../infra/postgres/pglite-template.ts';
import { compileIfStale } from '../../scripts/compile.ts';
import { sharedErc20Starter } from './erc20-starter.ts';
import { headlessChromium } from './headless-chromium.ts';

if (!compileIfStale()) process.exit(1);
// the template before its archive: made at the same time, each would run initdb
await Promise.all([sharedErc20Starter(), headlessChromium(), warmCaches().then(() => pgliteTemplateArchive())]);
