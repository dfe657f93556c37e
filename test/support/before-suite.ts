/**
 * The test suite's before step (.taprc `before`), run once by tap before any test file, also when
 * tap runs a single file: compiles dist/ if it is older than the sources (the tests spawn the
 * compiled programs) and builds the starter project that most end-to-end files copy.
 */
import { compileIfStale } from '../../scripts/compile.ts';
import { sharedErc20Starter } from './erc20-project.ts';

if (!compileIfStale()) process.exit(1);
await sharedErc20Starter();
