/**
 * The unit test files that run together, one process per group (run-together.ts), by folder: every
 * `*.test.ts` outside test/ belongs to exactly one group (test/house-test-files.test.ts checks it),
 * and each group has its file test/together/<name>.test.ts. End-to-end files (test/) each run in a
 * process of their own, as tap runs them.
 */
export const TEST_GROUPS = {
  // the pure logic's tests, and those of the dev chain's, the bench's and the scripts' helpers
  domain: { folders: ['domain', 'devchain', 'bench', 'scripts'] },
  // the storage layer's (its read builders are a group of their own: the two take about as long)
  'infra-postgres': { folders: ['infra/postgres'], except: ['infra/postgres/read'] },
  'infra-postgres-read': { folders: ['infra/postgres/read'] },
  // the other adapters to the outside: RPC, sandbox, chains, files…
  infra: { folders: ['infra'], except: ['infra/postgres'] },
  'apps-query': { folders: ['apps/query'] },
  // idx-node's, the CLI's and idx-shard's
  apps: { folders: ['apps'], except: ['apps/query'] },
} as const satisfies Record<string, { folders: readonly string[]; except?: readonly string[] }>;

export type TestGroup = keyof typeof TEST_GROUPS;
