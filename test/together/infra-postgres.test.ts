import { runTogether } from '../support/run-together.ts';

// the unit tests of a group of folders, in one process (test/support/test-groups.ts)
await runTogether('infra-postgres');
