import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import type { LogSpan } from './cacheable-call.ts';
import { checkedBody, encodeSegment, segmentEntries, segmentLayout } from './cache-segment.ts';
import type { KeptSpan } from './log-coverage.ts';

/** Where a kept answer is: a segment file and the answer's place in its body. */
interface Place {
  segment: string;
  offset: number;
  length: number;
}

export interface RpcCacheStore {
  /** the directory of this chain's answers */
  readonly dir: string;
  /** A kept answer (a fresh copy), or undefined when none is kept or its file proved damaged. */
  get(key: string): Promise<unknown>;
  /** The kept log answers of a filter (`LogSpan.filter`), to cover a range with. */
  spans(filter: string): readonly KeptSpan<string>[];
  /** Keeps answers (written in the background: a failed write loses only the chance of a later hit). */
  put(answers: readonly { key: string; value: unknown; span?: LogSpan }[]): void;
  /** Waits for the writes under way. */
  flush(): Promise<void>;
}

export interface RpcCacheStoreOptions {
  /** the cache's directory, shared by every chain and every project on the machine */
  root: string;
  /** the chain's genesis hash: its answers are kept apart from every other chain's */
  chain: string;
  /** the whole cache's bound: past it, the least recently used segments go */
  maxBytes: number;
  /** told of a write that failed (a full disk…), once */
  onWriteError?: (err: Error) => void;
}

const SEGMENT = /\.seg$/;
/** segments' bodies kept in memory: consecutive calls mostly read the same few, and a reindex reads them in order (W1's largest is 1.3 MB) */
const LOADED_BYTES = 16 * 2 ** 20;
/** a temporary file older than this was left by a process that died while writing it */
const STALE_TEMP_MS = 60 * 60 * 1000;

/** The directory of one chain's answers under the cache's root. */
export function chainDir(root: string, chain: string): string {
  const name = chain.toLowerCase().replace(/[^0-9a-z]/g, '');
  return join(root, name.length > 0 ? name : 'unknown');
}

/**
 * The RPC cache of one chain on disk: segment files (cache-segment.ts), each written whole to a
 * temporary name and renamed, so that a crash or two processes at once never leave half a segment.
 * Opening reads every segment's header into an index of keys and log spans.
 */
export async function openRpcCacheStore(options: RpcCacheStoreOptions): Promise<RpcCacheStore> {
  const dir = chainDir(options.root, options.chain);
  await mkdir(dir, { recursive: true });
  const keys = new Map<string, Place>();
  const spans = new Map<string, KeptSpan<string>[]>();
  const segments = new Map<string, string[]>();
  const loaded = new Map<string, Promise<Buffer | undefined>>();
  let loadedBytes = 0;
  const pending = new Set<Promise<void>>();
  let writeFailed = false;
  let total = await evict(options.root, options.maxBytes);

  const index = (segment: string, entries: readonly { key: string; offset: number; length: number; span?: LogSpan }[]) => {
    segments.set(
      segment,
      entries.map((e) => e.key),
    );
    for (const e of entries) {
      keys.set(e.key, { segment, offset: e.offset, length: e.length });
      if (e.span === undefined) continue;
      const list = spans.get(e.span.filter) ?? [];
      list.push({ from: e.span.from, to: e.span.to, at: e.key });
      spans.set(e.span.filter, list);
    }
  };
  /** A segment proved damaged or gone: nothing of it is served again. */
  const forget = (segment: string) => {
    for (const key of segments.get(segment) ?? []) if (keys.get(key)?.segment === segment) keys.delete(key);
    for (const [filter, list] of spans)
      spans.set(
        filter,
        list.filter((s) => keys.get(s.at) !== undefined),
      );
    segments.delete(segment);
    loaded.delete(segment);
  };

  for (const name of await readdir(dir)) {
    if (SEGMENT.test(name)) {
      const entries = await readHeader(join(dir, name));
      if (entries === undefined) await unlink(join(dir, name)).catch(() => undefined);
      else index(name, entries);
    } else if (name.startsWith('.tmp-')) {
      const s = await stat(join(dir, name)).catch(() => undefined);
      if (s !== undefined && Date.now() - s.mtimeMs > STALE_TEMP_MS) await unlink(join(dir, name)).catch(() => undefined);
    }
  }

  /** A segment's body, read once and kept while recently used; its file's time marks it used. */
  function body(segment: string): Promise<Buffer | undefined> {
    const kept = loaded.get(segment);
    if (kept !== undefined) {
      loaded.delete(segment);
      loaded.set(segment, kept);
      return kept;
    }
    const path = join(dir, segment);
    const reading = readFile(path).then(
      async (file) => {
        const b = checkedBody(file);
        if (b === undefined) {
          // gone before the answer: a later process (or look) never meets it again
          await unlink(path).catch(() => undefined);
          return undefined;
        }
        loadedBytes += b.length;
        const now = new Date();
        void utimes(path, now, now).catch(() => undefined);
        for (const [name, p] of loaded) {
          if (loadedBytes <= LOADED_BYTES || name === segment) break;
          loaded.delete(name);
          void p.then((old) => (loadedBytes -= old?.length ?? 0));
        }
        return b;
      },
      () => undefined,
    );
    loaded.set(segment, reading);
    return reading;
  }

  async function write(answers: readonly { key: string; value: unknown; span?: LogSpan }[]): Promise<void> {
    const { bytes, entries } = encodeSegment(answers.map((a) => ({ key: a.key, json: JSON.stringify(a.value), ...(a.span && { span: a.span }) })));
    const name = `${Date.now().toString(36).padStart(9, '0')}-${process.pid}-${threadId}-${randomBytes(4).toString('hex')}.seg`;
    const temp = join(dir, `.tmp-${name}`);
    await writeFile(temp, bytes);
    await rename(temp, join(dir, name));
    index(name, entries);
    total += bytes.length;
    if (total > options.maxBytes) total = await evict(options.root, options.maxBytes);
  }

  return {
    dir,
    async get(key) {
      const place = keys.get(key);
      if (place === undefined) return undefined;
      const b = await body(place.segment);
      if (b === undefined || place.offset + place.length > b.length) {
        forget(place.segment);
        return undefined;
      }
      try {
        return JSON.parse(b.toString('utf8', place.offset, place.offset + place.length)) as unknown;
      } catch {
        forget(place.segment);
        return undefined;
      }
    },
    spans: (filter) => (spans.get(filter) ?? []).filter((s) => keys.has(s.at)),
    put(answers) {
      if (answers.length === 0) return;
      const p = write(answers).catch((err: Error) => {
        if (!writeFailed) options.onWriteError?.(err);
        writeFailed = true;
      });
      pending.add(p);
      void p.finally(() => pending.delete(p));
    },
    async flush() {
      await Promise.all([...pending]);
    },
  };
}

/** A segment's entries from its header, or undefined when the file is not a whole segment's. */
async function readHeader(path: string): Promise<ReturnType<typeof segmentEntries>> {
  const file = await open(path, 'r').catch(() => undefined);
  if (file === undefined) return undefined;
  try {
    const head = Buffer.alloc(256);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const layout = segmentLayout(head.subarray(0, bytesRead));
    if (layout === undefined) return undefined;
    const { size } = await file.stat();
    if (size !== layout.headerStart + layout.headerLength + layout.bodyLength) return undefined;
    const header = Buffer.alloc(layout.headerLength);
    await file.read(header, 0, header.length, layout.headerStart);
    return segmentEntries(header);
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

/** Every segment of every chain under `root`, with its size and when it was last used. */
async function listSegments(root: string): Promise<{ path: string; size: number; usedMs: number }[]> {
  const out: { path: string; size: number; usedMs: number }[] = [];
  const chains = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const c of chains) {
    if (!c.isDirectory()) continue;
    for (const name of await readdir(join(root, c.name)).catch(() => [])) {
      if (!SEGMENT.test(name)) continue;
      const path = join(root, c.name, name);
      const s = await stat(path).catch(() => undefined);
      if (s !== undefined) out.push({ path, size: s.size, usedMs: s.mtimeMs });
    }
  }
  return out;
}

/**
 * Keeps the whole cache within `maxBytes`: the least recently used segments go until it holds at
 * most 90 % of it (so that not every write evicts). Returns the bytes it holds then.
 */
export async function evict(root: string, maxBytes: number): Promise<number> {
  const all = await listSegments(root);
  let total = all.reduce((n, s) => n + s.size, 0);
  if (total <= maxBytes) return total;
  for (const s of all.sort((a, b) => a.usedMs - b.usedMs)) {
    if (total <= maxBytes * 0.9) break;
    await unlink(s.path).catch(() => undefined);
    total -= s.size;
  }
  return total;
}

/** What the cache under `root` holds: per chain, its segments and bytes. */
export async function rpcCacheUsage(root: string): Promise<{ chain: string; segments: number; bytes: number }[]> {
  const byChain = new Map<string, { segments: number; bytes: number }>();
  for (const s of await listSegments(root)) {
    const chain = s.path.slice(root.length + 1).split(/[\\/]/)[0]!;
    const u = byChain.get(chain) ?? { segments: 0, bytes: 0 };
    u.segments++;
    u.bytes += s.size;
    byChain.set(chain, u);
  }
  return [...byChain].map(([chain, u]) => ({ chain, ...u }));
}

/** Empties the cache under `root`: every chain's directory of segments (nothing else there is touched). */
export async function clearRpcCache(root: string): Promise<{ chains: number; bytes: number }> {
  const usage = await rpcCacheUsage(root);
  for (const u of usage) {
    const dir = join(root, u.chain);
    for (const name of await readdir(dir).catch(() => [])) if (SEGMENT.test(name) || name.startsWith('.tmp-')) await rm(join(dir, name), { force: true });
    await rmdir(dir).catch(() => undefined);
  }
  return { chains: usage.length, bytes: usage.reduce((n, u) => n + u.bytes, 0) };
}
