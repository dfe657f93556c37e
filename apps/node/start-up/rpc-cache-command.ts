import { clearRpcCache, rpcCacheUsage } from '../../../infra/rpc/cache/rpc-cache-store.ts';
import { rpcCacheRoot } from '../families/rpc-cache-layer.ts';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** `idx-node rpc-cache clear|info [--rpc-cache <dir>]`: empties the RPC cache, or says what it holds per chain. Returns the exit code. */
export async function rpcCacheCommand(
  action: 'clear' | 'info',
  setting: string | boolean,
  env: Readonly<Record<string, string | undefined>>,
  print: (line: string) => void,
): Promise<number> {
  const root = rpcCacheRoot(setting, env);
  if (root === undefined) {
    print('no RPC cache: --rpc-cache=false, or no HOME or XDG_CACHE_HOME to find the default one in; give --rpc-cache <dir>');
    return setting === false ? 0 : 1;
  }
  if (action === 'clear') {
    const { chains, bytes } = await clearRpcCache(root);
    print(`cleared the RPC cache in ${root}: ${chains} chain${chains === 1 ? '' : 's'}, ${mib(bytes)}`);
    return 0;
  }
  const usage = await rpcCacheUsage(root);
  if (usage.length === 0) print(`the RPC cache in ${root} is empty`);
  for (const u of usage) print(`${root}: chain ${u.chain}: ${u.segments} segments, ${mib(u.bytes)}`);
  return 0;
}
