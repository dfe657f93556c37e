import { Tuple, type GenericExtrinsic, type TypeRegistry } from '@polkadot/types';
import type { EventRecord } from '@polkadot/types/interfaces';
import type { Codec, CodecClass } from '@polkadot/types/types';
import { compactFromU8a, hexToU8a } from '@polkadot/util';
import type { SubstrateBlock, SubstrateBlockSummary } from '../../../domain/chains/substrate/substrate-block.ts';

/**
 * A fetched block as the node matches it (its extrinsics' calls and success, its events, its
 * timestamp) and as the sandbox gets it (`raw`), decoded with the registry of the runtime it ran.
 */
export function summariseBlock(
  registry: TypeRegistry,
  height: number,
  hash: string,
  signedBlock: unknown,
  eventsHex: string | null,
  specVersion: number,
): SubstrateBlock {
  const block = (signedBlock as { block: { header: { parentHash: string }; extrinsics: string[] } }).block;
  const { events, offsets } = decodeEvents(registry, eventsHex ?? '0x00');
  const succeeded = new Set<number>();
  for (const { section, method, extrinsic } of events)
    if (typeof extrinsic === 'number' && section === 'system' && method === 'ExtrinsicSuccess') succeeded.add(extrinsic);
  let timestampMs: number | null = null;
  const extrinsics = block.extrinsics.map((hex, i) => {
    const { section, method, isSigned } = callOf(registry, hex);
    if (section === 'timestamp' && method === 'set') {
      // typed by hand: the registry's typed overloads come from @polkadot/types-augment, which only tests load
      const set = registry.createType('Extrinsic', hex) as unknown as GenericExtrinsic;
      timestampMs = Number(set.method.args[0]!.toString());
    }
    return { section, method, isSigned, success: succeeded.has(i) };
  });
  return {
    height,
    hash,
    parentHash: block.header.parentHash.toLowerCase(),
    timestamp: timestampMs === null ? 0 : Math.floor(timestampMs / 1000),
    specVersion,
    extrinsics,
    events,
    raw: { signedBlock, events: eventsHex ?? '0x00', eventOffsets: offsets, timestampMs, specVersion },
  };
}

type EventPhase = SubstrateBlockSummary['events'][number]['extrinsic'];
interface EventKind {
  section: string;
  method: string;
  /** the event's fields as one Tuple class: decoding it finds where the data ends */
  Data: CodecClass;
}
const eventKinds = new WeakMap<TypeRegistry, Map<number, EventKind>>();
/** the bytes a codec was decoded from (its re-encoding could differ in length) */
const read = (codec: Codec) => codec.initialU8aLength ?? codec.encodedLength;

/**
 * A block's `System.Events` (a `Vec<EventRecord>`) read a record at a time: each record's phase,
 * pallet and event, and where it starts, for matching handlers (the sandbox decodes the records its
 * handlers get). `@polkadot/types` would build each record's `GenericEventData` (field types, type
 * definitions, camelCased names, all per record); here the first record of each event of a runtime
 * is decoded whole, and later ones decode only their fields, with a Tuple class made once.
 * `offsets` has one entry more than `events`: the end of the last record.
 */
export function decodeEvents(registry: TypeRegistry, hex: string): { events: SubstrateBlockSummary['events']; offsets: number[] } {
  const bytes = hexToU8a(hex);
  const [prefix, count] = compactFromU8a(bytes);
  let kinds = eventKinds.get(registry);
  if (kinds === undefined) eventKinds.set(registry, (kinds = new Map()));
  let at = prefix;
  const offsets = [at];
  const events: SubstrateBlockSummary['events'] = [];
  for (let i = 0; i < count.toNumber(); i++) {
    const phase = registry.createType('Phase', bytes.subarray(at)) as unknown as EventRecord['phase'];
    const extrinsic: EventPhase = phase.isApplyExtrinsic ? phase.asApplyExtrinsic.toNumber() : phase.isInitialization ? 'initialization' : 'finalization';
    let end = at + read(phase);
    const key = (bytes[end]! << 8) | bytes[end + 1]!;
    let kind = kinds.get(key);
    if (kind === undefined) {
      const { event } = registry.createType('EventRecord', bytes.subarray(at)) as unknown as EventRecord;
      kind = { section: event.section, method: event.method, Data: Tuple.with(event.data.meta.fields.map(({ type }) => registry.createLookupType(type))) };
      kinds.set(key, kind);
    }
    end += 2 + read(new kind.Data(registry, bytes.subarray(end + 2)));
    end += read(registry.createType('Vec<Hash>', bytes.subarray(end)));
    events.push({ section: kind.section, method: kind.method, extrinsic });
    offsets.push((at = end));
  }
  return { events, offsets };
}

/**
 * An extrinsic's pallet and call, and whether it is signed, without decoding its arguments (a
 * `utility.batch` of thousands of calls is decoded only by the sandbox, when a handler reads it).
 * Version 4 extrinsics: the version byte, the signature part when signed, then the call's two index
 * bytes; any other version is decoded whole.
 */
export function callOf(registry: TypeRegistry, hex: string): { section: string; method: string; isSigned: boolean } {
  const bytes = hexToU8a(hex);
  const [offset] = compactFromU8a(bytes);
  const version = bytes[offset]!;
  if ((version & VERSION_MASK) === 4 && (version & GENERAL_BIT) === 0) {
    const isSigned = (version & SIGNED_BIT) !== 0;
    const body = bytes.subarray(offset + 1);
    const at = isSigned ? registry.createTypeUnsafe<Codec>('ExtrinsicSignatureV4', [body, { isSigned }]).encodedLength : 0;
    const { section, method } = registry.findMetaCall(body.subarray(at, at + 2));
    return { section, method, isSigned };
  }
  const x = registry.createType('Extrinsic', hex) as unknown as GenericExtrinsic;
  return { section: x.method.section, method: x.method.method, isSigned: x.isSigned };
}
const VERSION_MASK = 0b0011_1111;
const SIGNED_BIT = 0b1000_0000;
const GENERAL_BIT = 0b0100_0000;
