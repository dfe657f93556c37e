import { createServer } from 'node:http';
import { IdxError } from '../../domain/errors.ts';
import { listenOnFreePort } from '../../infra/http/listen-on-free-port.ts';
import type { Logger } from '../../infra/logging/create-logger.ts';
import { createDb, type Db } from '../../infra/postgres/create-db.ts';
import { createShardStore, type ShardStore } from '../../infra/postgres/shard-store.ts';
import { createRpcClient, type RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { hexToNumber } from '../../infra/rpc/hex-quantity.ts';
import { createJsonRpcHandler } from '../../infra/rpc/json-rpc-server.ts';
import { loadOrCreateJwtSecret, refuseJwt } from '../../infra/rpc/jwt-auth.ts';
import { RpcUnreachableError } from '../../infra/rpc/rpc-error.ts';
import { createShardAdmin } from './shard-admin.ts';
import { createShardKeeper } from './shard-keeper.ts';
import { createShardAdminMethods, createShardMethods } from './shard-methods.ts';
import type { ShardOptions } from './shard-options.ts';
import { createShardPruner } from './shard-pruner.ts';
import type { ShardRange } from './shard-range.ts';
import { createShardSync } from './shard-sync.ts';
import { createUpstreamFetcher, type UpstreamFetcher } from './upstream-fetcher.ts';

export interface RunShardContext {
  options: ShardOptions;
  logger: Logger;
  env: Readonly<Record<string, string | undefined>>;
  /** aborting stops syncing and serving, after the batch being written */
  signal: AbortSignal;
  /**
   * called once the JSON-RPC endpoints listen (`adminPort` when the admin endpoint runs); `pruned`
   * resolves once no data outside the range is left
   */
  onListening?: (port: number, shard: { pruned(): Promise<void>; store: ShardStore; adminPort?: number }) => void;
  progressEverySeconds?: number;
}

interface ChainIdentity {
  chainId: string;
  netVersion: string;
  genesisHash: string;
}

/** `idx-shard`: opens the store, checks the upstream's chain against it, then serves JSON-RPC while syncing and pruning. */
export async function runShard(ctx: RunShardContext): Promise<void> {
  const { options, logger } = ctx;
  const log = logger.child('shard');
  const upstream = createRpcClient({ endpoints: [{ url: options.upstream }], timeoutMs: 30_000, retries: 3 });
  const fetcher = createUpstreamFetcher(upstream, (m) => log.info(m));

  let db: Db | undefined;
  let lockLost: Error | undefined;
  const server = createServer();
  const adminServer = createServer();
  const stopped = new AbortController();
  const stop = () => stopped.abort();
  ctx.signal.addEventListener('abort', stop, { once: true });
  let listening = false;
  let adminListening = false;
  try {
    const adminSecret = options.adminSecretFile === undefined ? undefined : await loadOrCreateJwtSecret(options.adminSecretFile);
    if (adminSecret?.created) log.info(`wrote a new admin secret to ${options.adminSecretFile}`);
    db = await createDb({
      env: ctx.env,
      dataDir: options.dataDir,
      ssl: { ca: options.pgCa, cert: options.pgCert, key: options.pgKey },
      applicationName: 'idx-shard',
      // one writer per store: a second shard on it would prune and sync against the first
      writerLock: {
        schema: options.dbSchema,
        program: 'idx-shard',
        onLost: (err) => {
          lockLost = err;
          log.error(err.message);
          stop();
        },
      },
    });
    const store = createShardStore({ db: db.kysely, schema: options.dbSchema });
    await store.migrate();
    const identity = await checkUpstream(upstream, fetcher, store, options, db.description);
    const range = await startingRange(store, options);
    log.info(
      `chain ${hexToNumber(identity.chainId)} from ${upstream.endpoints[0]} into schema "${options.dbSchema}" of ${db.description}: ` +
        `range [${range.tail}, ${range.head ?? 'unset'}], synced up to ${range.synced < range.tail ? '-' : range.synced}`,
    );

    const keeper = createShardKeeper(range);
    const pruner = createShardPruner({ store, keeper, logger });
    const sync = createShardSync({
      client: upstream,
      fetcher,
      store,
      keeper,
      logger,
      batchSize: options.batchSize,
      pollIntervalMs: options.pollInterval,
      ...(ctx.progressEverySeconds !== undefined && { progressEverySeconds: ctx.progressEverySeconds }),
    });
    const methods = createShardMethods({
      store,
      keeper,
      adminEndpoint: adminSecret !== undefined,
      status: sync.status,
      upstream,
      chainId: identity.chainId,
      netVersion: identity.netVersion,
      maxLogRange: options.maxLogRange,
      maxLogResults: options.maxLogResults,
      maxLogBytes: options.maxResponseBytes,
    });
    const limits = { maxBatchSize: options.maxBatchCalls, maxResponseBytes: options.maxResponseBytes };
    const onInternalError = (err: unknown, method: string) => log.error(`${method}: ${(err as Error).stack ?? String(err)}`);
    server.on('request', createJsonRpcHandler({ methods, ...limits, onInternalError }));
    const port = await listenOnFreePort(server, options.port, { ...(options.host !== undefined && { host: options.host }) });
    listening = true;
    log.info(`serving JSON-RPC on http://${hostForUrl(options.host ?? 'localhost')}:${port}${options.host === undefined ? ' (every interface)' : ''}`);
    let adminPort: number | undefined;
    if (adminSecret !== undefined) {
      const secret = adminSecret.secret;
      adminServer.on(
        'request',
        createJsonRpcHandler({
          methods: createShardAdminMethods({ admin: createShardAdmin({ store, keeper, pruner }), keeper }),
          ...limits,
          onInternalError,
          authorize: (req) => refuseJwt(req.headers.authorization, secret),
        }),
      );
      adminPort = await listenOnFreePort(adminServer, options.adminPort ?? port + 1, { host: options.adminHost, flag: '--admin-port' });
      adminListening = true;
      log.info(`serving the admin methods on http://${hostForUrl(options.adminHost)}:${adminPort} (JWT signed with the secret in ${options.adminSecretFile})`);
    }
    ctx.onListening?.(port, { pruned: () => pruner.idle(), store, ...(adminPort !== undefined && { adminPort }) });

    const pruning = pruner.run(stopped.signal);
    try {
      await sync.run(stopped.signal);
    } finally {
      stopped.abort();
      await pruning;
    }
    log.info(`stopped at block ${keeper.range().synced}`);
    if (lockLost !== undefined) throw lockLost;
  } finally {
    ctx.signal.removeEventListener('abort', stop);
    for (const [s, on] of [
      [server, listening],
      [adminServer, adminListening],
    ] as const) {
      if (!on) continue;
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    await db?.close().catch(() => undefined);
  }
}

const hostForUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

/**
 * The upstream's chain id and genesis against those stored by an earlier run (a restarted dev chain
 * or a wrong URL must not mix two chains); on the first run, stores them with the genesis block.
 */
async function checkUpstream(upstream: RpcClient, fetcher: UpstreamFetcher, store: ShardStore, options: ShardOptions, where: string): Promise<ChainIdentity> {
  let chainId: string;
  let netVersion: string;
  let genesis;
  try {
    [chainId, netVersion] = (await upstream.batch([{ method: 'eth_chainId' }, { method: 'net_version' }])) as [string, string];
    [genesis] = await fetcher.fetch(0, 0);
  } catch (err) {
    if (err instanceof RpcUnreachableError) throw new IdxError('UPSTREAM_UNREACHABLE', `cannot reach --upstream: ${err.message}`, { cause: err });
    throw err;
  }
  if (genesis === undefined)
    throw new IdxError('UPSTREAM_NO_GENESIS', `--upstream ${upstream.endpoints[0]} has no block 0 (a pruned node?): idx-shard needs a full upstream`);
  const state = await store.getState();
  if (typeof state.genesisHash === 'string' && (state.genesisHash !== genesis.hash || state.chainId !== chainId)) {
    throw new IdxError(
      'CHAIN_GENESIS_MISMATCH',
      `schema "${options.dbSchema}" of ${where} holds chain ${String(state.chainId)} with genesis ${state.genesisHash}, but --upstream serves chain ${chainId} with genesis ${genesis.hash} ` +
        '(a restarted dev chain, or another network?): use another --db-schema (or --data-dir), or drop that schema to start over',
    );
  }
  if (state.genesisHash === undefined) await store.writeBlocks([genesis], { chainId, netVersion, genesisHash: genesis.hash });
  return { chainId, netVersion, genesisHash: genesis.hash };
}

/**
 * The range to start with: the flags where given (they override what admin calls stored), else the
 * stored range, else the whole chain. The synced height is where the kept data stops being one run
 * from the tail: a tail moved below the data kept syncs again from it.
 */
async function startingRange(store: ShardStore, options: ShardOptions): Promise<ShardRange> {
  const state = await store.getState();
  const storedTail = typeof state.tail === 'number' ? state.tail : undefined;
  const storedHead = typeof state.head === 'number' ? state.head : null;
  const tail = options.shardStart ?? storedTail ?? 0;
  const head = options.shardEnd !== undefined ? options.shardEnd : storedHead;
  if (head !== null && head <= tail) {
    const from = (flag: string, given: boolean) =>
      given
        ? flag
        : `${flag} stored by an earlier run (set with ${flag === 'the head' ? '-shardend or admin_setEndHeight' : '-shardstart or admin_setStartHeight'})`;
    throw new IdxError(
      'BAD_ARGUMENT',
      `idx-shard: the head must be above the tail, but ${from('the head', options.shardEnd !== undefined)} is ${head} and ${from('the tail', options.shardStart !== undefined)} is ${tail}; give -shardend=<n> above ${tail} (or -shardend=0 to follow the chain)`,
    );
  }
  const first = Math.max(1, tail);
  let synced = typeof state.synced === 'number' ? state.synced : first - 1;
  if (synced < first - 1) synced = first - 1;
  if (synced >= first) {
    const lowest = await store.lowestBlock();
    if (lowest === undefined || lowest > first) synced = first - 1;
  }
  if (head !== null && synced > head) synced = head;
  await store.setState({ tail, head, synced });
  return { tail, head, synced };
}
