import { readFile } from 'node:fs/promises';
import type { StoreCache } from '../../../domain/entities/store-cache.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { TestCase } from '../../../domain/testing/range-test.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { createSandbox } from '../../../infra/sandbox/create-sandbox.ts';
import type { AnyNodeChain } from '../families/node-chain.ts';
import type { NodeOptions } from '../start-up/node-options.ts';

/**
 * The `subqlTest`s and `subqlRangeTest`s of one built test file: the bundle loaded in a sandbox of the project's family
 * (as SubQuery loads each test file in a TestSandbox of its own), where the generated entity
 * classes make the entities, then let go. Loading may not touch the store.
 */
export async function loadTestCases(file: string, chain: AnyNodeChain, options: NodeOptions, chainId: string, logger: Logger): Promise<TestCase[]> {
  const sandbox = await createSandbox({
    code: await readFile(file, 'utf8'),
    fileName: file,
    unsafe: options.unsafe,
    timeoutMs: options.timeout,
    queryLimit: options.queryLimit,
    family: chain.sandboxFamily,
    ...(chain.sandboxChainTypes !== undefined && { chainTypes: chain.sandboxChainTypes }),
    host: chain.mappingHost({
      cache: refusingCache(file),
      logger,
      chainId,
      currentHeight: () => 0,
      createDynamicDatasource: () => refuse(file),
    }),
  });
  try {
    return [...sandbox.tests];
  } finally {
    sandbox.dispose();
  }
}

function refuse(file: string): never {
  throw new IdxError('TEST_FILE_INVALID', `${file} used the store while it loaded: a test file only declares its tests`);
}

/** The store of a test file's load: any use is refused. */
function refusingCache(file: string): StoreCache {
  const no = () => refuse(file);
  return {
    get: async () => no(),
    getByField: async () => no(),
    getByFields: async () => no(),
    getOneByField: async () => no(),
    set: no,
    bulkCreate: no,
    bulkUpdate: async () => no(),
    remove: no,
    bulkRemove: no,
    takeOperations: () => ({ operations: [], mark: 0 }),
    flushed: () => undefined,
    pendingCount: () => 0,
    discard: () => undefined,
    markRead: () => undefined,
  };
}
