/**
 * The test suite's before step (.taprc `before`), run once by tap before any test file, also when
 * tap runs a single file: compiles dist/ if it is older than the sources (the tests spawn the
 * compiled programs), builds the starter project that most end-to-end files copy, and unpacks the
 * browser tests' Chromium once (two files unpacking it at the same time would race).
 */
import { compileIfStale } from '../../scripts/compile.ts';
import { sharedErc20Starter } from './erc20-starter.ts';
import { headlessChromium } from './headless-chromium.ts';

if (!compileIfStale()) process.exit(1);
await sharedErc20Starter();
await headlessChromium();
