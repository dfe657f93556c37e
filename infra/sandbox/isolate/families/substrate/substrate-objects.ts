import type { SubstratePayload } from './substrate-wire.ts';
import { lazyProperty } from '../../lazy-property.ts';

/** The part of `@polkadot/types` the sandbox loads for Substrate projects (infra/sandbox/families/substrate/lib/index.ts), typed loosely. */
export interface SubstrateLib {
  expandMetadata: (registry: Registry, metadata: unknown) => Expanded;
  unwrapStorageType: (registry: Registry, type: unknown, isOptional?: boolean) => string;
  hexToU8a: (hex: string) => Uint8Array;
  rpcDefinitions: Record<string, Record<string, RpcDefinition>>;
  /** the node's own registry making (infra/chains/substrate/create-runtime-registry.ts) */
  createRuntimeRegistry: (inputs: RuntimeInputs & { specVersion: number; chainTypes?: unknown }) => { registry: Registry; metadata: unknown };
  runtimeRpc: (registry: Registry, chain: string, specName: string) => Record<string, Record<string, RpcDefinition>>;
  withHashers: (chainTypes: unknown) => unknown;
}

/** What the host tells of a runtime: its metadata (hex), the chain's properties and name, the spec name. */
interface RuntimeInputs {
  metadata: string;
  properties: Rec;
  chain: string;
  specName: string;
}

interface RpcDefinition {
  endpoint?: string;
  params: { name: string; type: string; isHistoric?: boolean; isOptional?: boolean }[];
  type: string;
}

interface Expanded {
  query: Record<string, Record<string, StorageEntry>>;
  consts: Record<string, unknown>;
  events: Record<string, unknown>;
  errors: Record<string, unknown>;
  registry: Registry;
}

interface Registry {
  findMetaCall(callIndex: Uint8Array): unknown;
  findMetaError(errorIndex: Uint8Array): unknown;
  createType(type: string, value?: unknown): Codec;
  createClass(type: string): new (registry: Registry, value: unknown) => Rec;
  createTypeUnsafe(type: string, params: unknown[], options?: { blockHash?: string; isFallback?: boolean; isOptional?: boolean }): Codec;
  createLookupType(lookupId: unknown): string;
  hash(data: Uint8Array): Codec;
  readonly metadata: {
    pallets: { name: Codec; storage: { unwrapOr(fallback: undefined): { items: { name: Codec; type: unknown }[] } | undefined } }[];
  };
}
type Codec = Record<string, unknown> & { toNumber(): number; toHex(): string; toU8a(): Uint8Array; toJSON(): unknown };
interface StorageEntry {
  (...args: unknown[]): Uint8Array;
  meta: { type: { isPlain: boolean; asPlain: unknown; asMap: { value: unknown } }; modifier: { isOptional: boolean }; fallback?: Codec };
}

type Rec = Record<string, unknown>;

/**
 * Runtimes by spec version: a registry per runtime the chain ran, made from its metadata, the chain's
 * properties and name and the runtime's spec name (asked of the host once), with the project's chain
 * types, as @polkadot/api makes it; and the JSON-RPC methods the chain types' bundle adds for it.
 */
export function createSubstrateRuntimes(lib: SubstrateLib, chainTypes: () => unknown, runtimeOf: (specVersion: number) => Promise<RuntimeInputs>) {
  type Runtime = {
    registry: Registry;
    metadata: unknown;
    rpc: Record<string, Record<string, RpcDefinition>>;
    expanded?: ReturnType<SubstrateLib['expandMetadata']>;
  };
  const made = new Map<number, Runtime>();
  // one making per spec version, shared by a warm-up and the first block that needs it
  const making = new Map<number, Promise<Runtime>>();
  let prepared: { types: unknown } | undefined;
  const make = async (specVersion: number): Promise<Runtime> => {
    const got = await runtimeOf(specVersion);
    prepared ??= { types: lib.withHashers(chainTypes()) };
    const { registry, metadata } = lib.createRuntimeRegistry({ ...got, specVersion, ...(prepared.types !== undefined && { chainTypes: prepared.types }) });
    const r = { registry, metadata, rpc: lib.runtimeRpc(registry, got.chain, got.specName) };
    made.set(specVersion, r);
    return r;
  };
  return {
    async get(specVersion: number): Promise<Runtime> {
      const r = made.get(specVersion);
      if (r !== undefined) return r;
      let pending = making.get(specVersion);
      if (pending === undefined) {
        making.set(specVersion, (pending = make(specVersion)));
        pending.then(
          () => making.delete(specVersion),
          () => making.delete(specVersion),
        );
      }
      return pending;
    },
    expanded(specVersion: number) {
      const r = made.get(specVersion)!;
      return (r.expanded ??= lib.expandMetadata(r.registry, r.metadata));
    },
    /** the JSON-RPC methods the chain types add for a runtime already made */
    rpc(specVersion: number) {
      return made.get(specVersion)?.rpc ?? {};
    },
  };
}

export type SubstrateRuntimes = ReturnType<typeof createSubstrateRuntimes>;

/**
 * SubQuery's SubstrateBlock, SubstrateExtrinsic and SubstrateEvent, as `@subql/node` builds them
 * (utils/substrate.ts: the SignedBlock of `chain_getBlock` with `timestamp`, `specVersion` and
 * `events`, a plain array of the System.Events records, merged in; per extrinsic `{ idx, extrinsic,
 * block, events, success }`; per event record `idx`, `block` and `extrinsic`), decoded as they are
 * read: a handler of one event decodes that record and, when it reads `event.extrinsic`, that
 * extrinsic, not the whole block. The laziness is in values only, never in shape: the SignedBlock's
 * `extrinsics` entry is a real Vec of the block's length whose elements decode on first read, and
 * `events`, `extrinsic.events` and `event.extrinsic` are properties in their places that turn into
 * plain ones on first read, so every path (getters, `get`, iteration, index, encoding, JSON, spread,
 * `Object.keys`) reads what @polkadot/api gives (proven by test/substrate-objects-differential.test.ts).
 * Whatever is read is one object however reached (`block.events[e.idx] === e`,
 * `e.extrinsic.extrinsic === block.block.extrinsics[x]`).
 */
export async function buildSubstrateObjects(lib: SubstrateLib, runtimes: SubstrateRuntimes, payload: SubstratePayload) {
  const { registry } = await runtimes.get(payload.specVersion);
  const signed = payload.signedBlock as Rec & { block: Rec & { extrinsics: string[] } };
  const extrinsicsHex = signed.block.extrinsics;
  const eventBytes = lib.hexToU8a(payload.events);
  const { eventOffsets, eventExtrinsics, extrinsicSuccess } = payload;

  const { Extrinsic, EventRecord } = codecClasses(lib, registry);
  const extrinsicCodecs: Rec[] = [];
  const extrinsicCodec = (x: number) => {
    let codec = extrinsicCodecs[x];
    if (codec === undefined) {
      const made = new Extrinsic(registry, extrinsicsHex[x]);
      // its own `hash` re-encodes it to hash it: the bytes it was decoded from are that encoding
      let hash: unknown;
      Object.defineProperty(made, 'hash', { get: () => (hash ??= registry.hash(lib.hexToU8a(extrinsicsHex[x]!))), configurable: true });
      codec = extrinsicCodecs[x] = made;
    }
    return codec;
  };
  // as @polkadot/api's chain.getBlock: decoded from the JSON, and made at the block's hash
  const block = registry.createType('SignedBlock', { ...signed, block: { ...signed.block, extrinsics: [] } }) as unknown as Rec & {
    block: Map<string, unknown>;
  };
  block.createdAtHash = registry.createType('BlockHash', payload.hash);
  Map.prototype.set.call(
    block.block,
    'extrinsics',
    lazyElements(registry.createType('Vec<Extrinsic>') as unknown as unknown[], extrinsicsHex.length, extrinsicCodec),
  );

  const records: Rec[] = [];
  const event = (i: number): Rec => {
    let record = records[i];
    if (record === undefined) {
      record = new EventRecord(registry, eventBytes.subarray(eventOffsets[i], eventOffsets[i + 1]));
      Object.assign(record, { idx: i, block });
      const x = eventExtrinsics[i]!;
      if (x >= 0) lazyProperty(record, 'extrinsic', () => extrinsic(x));
      records[i] = record;
    }
    return record;
  };
  const eventCount = eventOffsets.length - 1;
  const wrappers: Rec[] = [];
  // each extrinsic's events, found in one pass when first asked (a block may hold thousands of both)
  let byExtrinsic: Map<number, number[]> | undefined;
  const eventsOf = (x: number) => {
    if (byExtrinsic === undefined) {
      byExtrinsic = new Map();
      eventExtrinsics.forEach((of, i) => {
        const list = byExtrinsic!.get(of);
        if (list === undefined) byExtrinsic!.set(of, [i]);
        else list.push(i);
      });
    }
    return (byExtrinsic.get(x) ?? []).map(event);
  };
  const extrinsic = (x: number): Rec => {
    let wrapper = wrappers[x];
    if (wrapper === undefined) {
      // its keys in @subql/node's order
      wrapper = { idx: x, extrinsic: extrinsicCodec(x), block, events: undefined, success: extrinsicSuccess[x] === true };
      lazyProperty(wrapper, 'events', () => eventsOf(x));
      wrappers[x] = wrapper;
    }
    return wrapper;
  };
  const timestamp = payload.timestampMs === null ? undefined : new Date(payload.timestampMs);
  Object.assign(block, { timestamp, specVersion: payload.specVersion, events: undefined });
  lazyProperty(block, 'events', () => Array.from({ length: eventCount }, (_, i) => event(i)));
  return { block, extrinsic, event };
}

/**
 * `vec` given `count` elements, each made on first read (or replaced when written) and a plain
 * element from then on. Array methods, iteration, spread and the codec's own encoding all read
 * elements by index, so they see every one. (An element's accessor lives in the array's elements,
 * not its shape, so one made per element costs no shape of its own, unlike lazyProperty's.)
 */
function lazyElements<T>(vec: T[], count: number, make: (i: number) => T): T[] {
  for (let i = 0; i < count; i++) {
    const settle = (value: unknown) => {
      Object.defineProperty(vec, i, { value, writable: true, enumerable: true, configurable: true });
      return value;
    };
    Object.defineProperty(vec, i, { get: () => settle(make(i)), set: settle, enumerable: true, configurable: true });
  }
  return vec;
}

type CodecClass = new (registry: Registry, value: unknown) => Rec;
/**
 * The classes of a runtime's extrinsics and event records (what `registry.createType` would look up by
 * name for every one), found once per runtime. A record is the element of System.Events' storage type
 * (`FrameSystemEventRecord` from metadata V14 on), as @polkadot/api decodes it.
 */
const classesByRegistry = new WeakMap<Registry, { Extrinsic: CodecClass; EventRecord: CodecClass }>();
function codecClasses(lib: SubstrateLib, registry: Registry) {
  let classes = classesByRegistry.get(registry);
  if (classes === undefined) {
    const system = registry.metadata.pallets.find((p) => p.name.toString() === 'System');
    const events = system?.storage.unwrapOr(undefined)?.items.find((item) => item.name.toString() === 'Events');
    const vec = events === undefined ? undefined : lib.unwrapStorageType(registry, events.type);
    const record = (vec === undefined ? undefined : /^Vec<(.+)>$/.exec(vec)?.[1]) ?? 'EventRecord';
    classes = { Extrinsic: registry.createClass('Extrinsic'), EventRecord: registry.createClass(record) };
    classesByRegistry.set(registry, classes);
  }
  return classes;
}

/**
 * The `api` global of Substrate mappings, at the running block: `api.query.<pallet>.<item>(...keys)`
 * reads storage as of the block (decoded with its runtime's types; an empty entry is its default),
 * `api.consts.<pallet>.<name>` the runtime's constants, `api.rpc.<section>.<method>(...)` the node's
 * JSON-RPC calls that read at a block (see `rpcAt`).
 */
export function createSubstrateApi(
  lib: SubstrateLib,
  runtimes: SubstrateRuntimes,
  at: () => { hash: string; height: number; specVersion: number } | undefined,
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
      return storageValue(registry, entry.meta, raw === null ? null : lib.hexToU8a(raw), hash);
    }),
  );
  /**
   * A storage value as @polkadot/api's rpc-core decodes it (RpcCore._newType): by the entry's lookup
   * type from its SCALE bytes (a hex string would read as a big-endian number); an empty entry as its
   * declared default, marked `isStorageFallback`; an optional entry as an Option of it; each made at
   * the block (`createdAtHash`).
   */
  const storageValue = (registry: Registry, meta: StorageEntry['meta'], bytes: Uint8Array | null, blockHash: string) => {
    const type = registry.createLookupType(meta.type.isPlain ? meta.type.asPlain : meta.type.asMap.value);
    const isEmpty = bytes === null;
    const fallback = meta.fallback === undefined ? undefined : lib.hexToU8a(meta.fallback.toHex());
    const value = isEmpty ? fallback : meta.modifier.isOptional ? registry.createTypeUnsafe(type, [bytes], { blockHash }) : bytes;
    return registry.createTypeUnsafe(type, [value], { blockHash, isFallback: isEmpty && fallback !== undefined, isOptional: meta.modifier.isOptional });
  };
  // the runtime's constants, and its events and errors as @polkadot/api decorates them (`api.events.balances.Transfer.is(e)`)
  const decorated = (kind: 'consts' | 'events' | 'errors') =>
    byName((pallet) => {
      const { specVersion } = current();
      const value = runtimes.expanded(specVersion)[kind][pallet];
      if (value === undefined) throw new Error(`api.${kind}.${pallet} does not exist in the runtime of this block (spec version ${specVersion})`);
      return value;
    });
  const registryAt = () => runtimes.expanded(current().specVersion).registry;
  const bytes = (index: Uint8Array | string) => (typeof index === 'string' ? lib.hexToU8a(index) : index);
  const rpc = byName((section) =>
    byName((method) => {
      // @polkadot/api's own definitions first, then those the chain types' bundle adds (rpc-core's addUserInterfaces)
      const def = lib.rpcDefinitions[section]?.[method] ?? runtimes.rpc(current().specVersion)[section]?.[method];
      const name = `api.rpc.${section}.${method}`;
      if (def === undefined) return () => Promise.reject(new Error(`${name} is not a JSON-RPC method @polkadot/api knows`));
      return rpcAt(name, def.endpoint ?? `${section}_${method}`, def);
    }),
  );

  /**
   * SubQuery's rule: only calls with a block parameter run, at the indexed block when it is left out,
   * and never at a later block (that would read the future); the others throw. Parameters and answer
   * are made with the block's runtime types, as @polkadot/api's rpc-core makes them.
   */
  function rpcAt(name: string, endpoint: string, def: RpcDefinition) {
    const blockParam = def.params.findIndex((p) => p.isHistoric === true);
    if (blockParam === -1) return () => Promise.reject(new Error(`${name} is not supported in mappings: only calls that read at a block are`));
    // answered as sets of changes per block, which @polkadot/api decodes with the keys' storage types
    if (/StorageChangeSet/.test(def.type))
      return () => Promise.reject(new Error(`${name} is not supported in mappings: use api.query or api.rpc.state.getStorage`));
    return async (...args: unknown[]) => {
      const { hash, height, specVersion } = current();
      const { registry } = await runtimes.get(specVersion);
      if (args.length > def.params.length) throw new Error(`${name} takes ${def.params.length} parameters, got ${args.length}`);
      const values = [...args];
      def.params.forEach((p, i) => {
        if (i !== blockParam && p.isOptional !== true && values[i] === undefined) throw new Error(`${name}: its parameter ${p.name} (${p.type}) is missing`);
      });
      const given = values[blockParam];
      // the block the call reads at, by hash: @polkadot/api makes the answer at it (`createdAtHash`)
      let atHash = hash;
      if (given === undefined || given === null) values[blockParam] = def.params[blockParam]!.type === 'BlockNumber' ? height : hash;
      else if (def.params[blockParam]!.type === 'BlockNumber') {
        const target = Number(registry.createType('BlockNumber', given).toString());
        if (target > height) throw new Error(`${name}: block ${target} is after the block being indexed (${height}); reading ahead is not supported`);
        atHash = (await request('chain_getBlockHash', [target])) as string;
      } else {
        atHash = registry.createType('BlockHash', given).toHex();
        const target = await heightOf(atHash);
        if (target > height) throw new Error(`${name}: block ${target} is after the block being indexed (${height}); reading ahead is not supported`);
      }
      const params = values.map((v, i) => registry.createType(def.params[i]!.type, v).toJSON());
      const result = await request(endpoint, params);
      // a storage answer of a key given as bytes: @polkadot/api has no type for it, and reads it as an Option of its raw bytes
      if (def.type === 'StorageData') {
        const value = result === null ? undefined : registry.createTypeUnsafe('Raw', [lib.hexToU8a(result as string)], { blockHash: atHash });
        return registry.createTypeUnsafe('Raw', [value], { blockHash: atHash, isOptional: true });
      }
      return registry.createTypeUnsafe(def.type, [result], { blockHash: atHash });
    };
  }
  const heightOf = async (blockHash: string): Promise<number> => {
    const header = (await request('chain_getHeader', [blockHash])) as { number: string } | null;
    if (header === null) throw new Error(`the chain has no block ${blockHash}`);
    return Number(header.number);
  };
  return {
    query,
    consts: decorated('consts'),
    events: decorated('events'),
    errors: decorated('errors'),
    rpc,
    /** the type registry of the block's runtime (`api.registry.createType(...)`) */
    get registry() {
      return registryAt();
    },
    findCall: (callIndex: Uint8Array | string) => registryAt().findMetaCall(bytes(callIndex)),
    findError: (errorIndex: Uint8Array | string) => registryAt().findMetaError(bytes(errorIndex)),
  };
}
