import type { SubstratePayload } from './wire.ts';

/** The part of `@polkadot/types` the sandbox loads for Substrate projects (substrate-lib/index.ts), typed loosely. */
export interface SubstrateLib {
  TypeRegistry: new () => Registry;
  Metadata: new (registry: Registry, hex: string) => unknown;
  expandMetadata: (registry: Registry, metadata: unknown) => { query: Record<string, Record<string, StorageEntry>>; consts: Record<string, unknown> };
  unwrapStorageType: (registry: Registry, type: unknown, isOptional?: boolean) => string;
}

interface Registry {
  setMetadata(metadata: unknown): void;
  setChainProperties(properties: unknown): void;
  register(types: Record<string, unknown>): void;
  createType(type: string, value?: unknown): Codec;
}
type Codec = Record<string, unknown> & { toNumber(): number; toHex(): string };
interface StorageEntry {
  (...args: unknown[]): Uint8Array;
  meta: { type: unknown; modifier: { isOptional: boolean }; fallback?: unknown };
}

type Rec = Record<string, unknown>;

/**
 * Runtimes by spec version: a registry per runtime the chain ran, made from its metadata (asked of
 * the host once), with the chain's properties and the project's chain types.
 */
export function createSubstrateRuntimes(lib: SubstrateLib, metadataOf: (specVersion: number) => Promise<{ metadata: string; properties: Rec; types?: Rec }>) {
  const runtimes = new Map<number, { registry: Registry; metadata: unknown; expanded?: ReturnType<SubstrateLib['expandMetadata']> }>();
  return {
    async get(specVersion: number) {
      let r = runtimes.get(specVersion);
      if (r === undefined) {
        const got = await metadataOf(specVersion);
        const registry = new lib.TypeRegistry();
        if (got.types !== undefined) registry.register(got.types);
        // properties first: the metadata's own SS58 prefix then wins, as with @polkadot/api
        registry.setChainProperties(registry.createType('ChainProperties', got.properties));
        const metadata = new lib.Metadata(registry, got.metadata);
        registry.setMetadata(metadata);
        r = { registry, metadata };
        runtimes.set(specVersion, r);
      }
      return r;
    },
    expanded(specVersion: number) {
      const r = runtimes.get(specVersion)!;
      return (r.expanded ??= lib.expandMetadata(r.registry, r.metadata));
    },
  };
}

export type SubstrateRuntimes = ReturnType<typeof createSubstrateRuntimes>;

/**
 * SubQuery's SubstrateBlock, SubstrateExtrinsic and SubstrateEvent, built as `@subql/node` builds
 * them: the decoded SignedBlock with `timestamp`, `specVersion` and `events`; per extrinsic its
 * `idx`, `events`, `success` and `block`; per event record its `idx`, `block` and `extrinsic`.
 */
export async function buildSubstrateObjects(runtimes: SubstrateRuntimes, payload: SubstratePayload) {
  const { registry } = await runtimes.get(payload.specVersion);
  const block = registry.createType('SignedBlock', payload.signedBlock) as unknown as Rec & { block: { extrinsics: Rec[] } };
  const events = registry.createType('Vec<EventRecord>', payload.events) as unknown as (Rec & {
    phase: Rec & { isApplyExtrinsic: boolean; asApplyExtrinsic: Codec };
  })[];
  const extrinsicOf = (e: (typeof events)[number]) => (e.phase.isApplyExtrinsic ? e.phase.asApplyExtrinsic.toNumber() : -1);
  const timestampExtrinsic = block.block.extrinsics.find((x) => {
    const m = x.method as Rec;
    return m.section === 'timestamp' && m.method === 'set';
  });
  const timestamp = timestampExtrinsic === undefined ? undefined : new Date(((timestampExtrinsic.args as Codec[])[0] as Codec).toNumber());
  Object.assign(block, { timestamp, specVersion: payload.specVersion, events });
  // each extrinsic's events, in one pass (a block may hold thousands)
  const byExtrinsic = new Map<number, typeof events>();
  for (const e of events) {
    const x = extrinsicOf(e);
    if (x < 0) continue;
    const list = byExtrinsic.get(x);
    if (list === undefined) byExtrinsic.set(x, [e]);
    else list.push(e);
  }
  const extrinsics = block.block.extrinsics.map((extrinsic, idx) => {
    const own = byExtrinsic.get(idx) ?? [];
    const success = own.some((e) => {
      const ev = e.event as Rec;
      return ev.section === 'system' && ev.method === 'ExtrinsicSuccess';
    });
    return { idx, extrinsic, block, events: own, success } as Rec;
  });
  events.forEach((e, idx) => {
    const x = extrinsicOf(e);
    Object.assign(e, { idx, block, ...(x >= 0 && { extrinsic: extrinsics[x] }) });
  });
  return { block, extrinsics, events };
}

/**
 * The `api` global of Substrate mappings, at the running block: `api.query.<pallet>.<item>(...keys)`
 * reads storage as of the block (decoded with its runtime's types; an empty entry is its default),
 * `api.consts.<pallet>.<name>` the runtime's constants.
 */
export function createSubstrateApi(
  lib: SubstrateLib,
  runtimes: SubstrateRuntimes,
  at: () => { hash: string; specVersion: number } | undefined,
  request: (method: string, params: unknown[]) => Promise<unknown>,
) {
  const current = () => {
    const block = at();
    if (block === undefined) throw new Error('api is only available while a handler runs');
    return block;
  };
  const byName = <T>(make: (name: string) => T) =>
    new Proxy({} as Record<string, T>, { get: (_, name) => (typeof name === 'string' ? make(name) : undefined) });
  const query = byName((pallet) =>
    byName((item) => async (...args: unknown[]) => {
      const { hash, specVersion } = current();
      const { registry } = await runtimes.get(specVersion);
      const entry = runtimes.expanded(specVersion).query[pallet]?.[item];
      if (entry === undefined) throw new Error(`api.query.${pallet}.${item} does not exist in the runtime of this block (spec version ${specVersion})`);
      // a StorageKey, as @polkadot/api makes it: the decorated entry's own bytes carry a length prefix
      const key = registry.createType('StorageKey', [entry, args]).toHex();
      const raw = (await request('state_getStorage', [key, hash])) as string | null;
      const inner = lib.unwrapStorageType(registry, entry.meta.type);
      if (entry.meta.modifier.isOptional) return registry.createType(`Option<${inner}>`, raw ?? undefined);
      // an empty entry reads as its declared default
      return registry.createType(inner, raw ?? (entry.meta.fallback as Codec | undefined)?.toHex());
    }),
  );
  const consts = byName((pallet) => {
    const { specVersion } = current();
    const value = runtimes.expanded(specVersion).consts[pallet];
    if (value === undefined) throw new Error(`api.consts.${pallet} does not exist in the runtime of this block (spec version ${specVersion})`);
    return value;
  });
  return { query, consts };
}
