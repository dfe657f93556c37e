import { decodeAbiParameters, getAddress, toEventSelector, toFunctionSelector } from 'viem/utils';
import type { AbiEvent, AbiFunction, AbiParameter } from 'viem';
import { memoRecent } from '../../domain/memo-recent.ts';
import type { JsonAbi } from '../../domain/mapping/json-abi.ts';
import { eventArgNames, tupleNames } from '../../domain/mapping/ethers-result-names.ts';
import { positional } from '../../domain/mapping/positional-params.ts';
import type { WireResult, WireValue } from './isolate/wire.ts';

/**
 * Decodes logs and call data by a data source's ABI into the wire form that the sandbox rebuilds
 * as ethers-v5-style `args`. viem decodes; this adds what ethers gives and viem does not: both
 * positional and named access, and indexed dynamic values kept as their topic hash.
 */
export interface AbiDecoder {
  /** undefined when no event of the ABI matches (SubQuery leaves `args` undefined then) */
  decodeLog(topics: readonly string[], data: string): WireResult | undefined;
  decodeInput(input: string): WireResult | undefined;
}

export function createAbiDecoder(abi: JsonAbi): AbiDecoder {
  const events = new Map<string, AbiEvent[]>();
  const functions = new Map<string, AbiFunction>();
  for (const item of abi as readonly { type?: string }[]) {
    try {
      if (item.type === 'event' && !(item as AbiEvent).anonymous) {
        const selector = toEventSelector(item as AbiEvent).toLowerCase();
        events.set(selector, [...(events.get(selector) ?? []), item as AbiEvent]);
      } else if (item.type === 'function') {
        functions.set(toFunctionSelector(item as AbiFunction).toLowerCase(), item as AbiFunction);
      }
    } catch {
      // a fragment viem cannot read never matches; the manifest validator reports bad ABIs
    }
  }
  // per event, function or indexed input: its parameters without names (`positional`), made once
  const unnamed = new WeakMap<object, AbiParameter[]>();
  const positionalOf = (owner: object, make: () => AbiParameter[]) => {
    let params = unnamed.get(owner);
    if (params === undefined) unnamed.set(owner, (params = make()));
    return params;
  };
  return {
    decodeLog(topics, data) {
      const candidates = topics[0] === undefined ? undefined : events.get(topics[0].toLowerCase());
      if (candidates === undefined) return undefined;
      // ERC20 and ERC721 share `Transfer(address,address,uint256)` but index a different number of inputs
      const event = candidates.find((e) => e.inputs.filter((i) => i.indexed).length === topics.length - 1);
      if (event === undefined) return undefined;
      try {
        const unindexed = event.inputs.filter((i) => !i.indexed);
        const values =
          decodeStatic(unindexed, data) ??
          (
            decodeAbiParameters(
              positionalOf(event, () => positional(unindexed)),
              data as `0x${string}`,
            ) as readonly unknown[]
          ).map((v, i) => toWire(unindexed[i]!, v));
        let t = 1;
        let u = 0;
        const items = event.inputs.map((input) => {
          if (!input.indexed) return values[u++]!;
          const topic = topics[t++] as `0x${string}`;
          if (isDynamic(input)) return { $i: topic };
          return (
            decodeWord(input.type, topic.slice(2)) ??
            toWire(
              input,
              decodeAbiParameters(
                positionalOf(input, () => positional([input])),
                topic,
              )[0],
            )
          );
        });
        const names = eventArgNames(event.inputs.map((i) => i.name));
        return event.inputs.some((i) => i.indexed && isDynamic(i)) ? { $r: items, n: names, c: 1 } : { $r: items, n: names };
      } catch {
        return undefined;
      }
    },
    decodeInput(input) {
      const fn = functions.get(input.slice(0, 10).toLowerCase());
      if (fn === undefined) return undefined;
      try {
        const data = `0x${input.slice(10)}`;
        const values =
          decodeStatic(fn.inputs, data) ??
          (
            decodeAbiParameters(
              positionalOf(fn, () => positional(fn.inputs)),
              data as `0x${string}`,
            ) as readonly unknown[]
          ).map((v, i) => toWire(fn.inputs[i]!, v));
        return { $r: values, n: tupleNames(fn.inputs.map((p) => p.name)) };
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The common case (addresses, integers, bools, fixed bytes, nothing dynamic) read word by word:
 * viem's general decoder costs ~60 µs a log, which dominated a block of ERC20 transfers.
 * Returns undefined when any parameter needs the general decoder.
 */
function decodeStatic(params: readonly AbiParameter[], data: string): WireValue[] | undefined {
  if (data.length < 2 + params.length * 64) return undefined;
  const out: WireValue[] = [];
  for (let i = 0; i < params.length; i++) {
    const v = decodeWord(params[i]!.type, data.slice(2 + i * 64, 66 + i * 64));
    if (v === undefined) return undefined;
    out.push(v);
  }
  return out;
}

// viem's getAddress checks and checksums through two LRU maps that reorder at every hit: a log's costliest step
const checksummed = memoRecent(8192, (hex40: string) => getAddress(`0x${hex40}`));

/** One 32-byte word (64 hex digits) of a static elementary type, as viem would decode it; undefined for other types. */
function decodeWord(type: string, word: string): WireValue | undefined {
  if (type === 'address') return checksummed(word.slice(24));
  if (type === 'bool') return /[^0]/.test(word);
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) {
    const bits = int[2] === '' ? 256 : Number(int[2]);
    const raw = BigInt(`0x${word}`);
    const value = int[1] === 'u' ? BigInt.asUintN(bits, raw) : BigInt.asIntN(bits, raw);
    // ethers and viem both give numbers up to 48 bits
    return bits <= 48 ? Number(value) : value;
  }
  const bytes = /^bytes(\d+)$/.exec(type);
  if (bytes) return `0x${word.slice(0, Number(bytes[1]) * 2)}`;
  return undefined;
}

function isDynamic(param: AbiParameter): boolean {
  return param.type === 'string' || param.type === 'bytes' || param.type.endsWith(']') || param.type.startsWith('tuple');
}

/** viem's value for one parameter → wire: tuples (arrays, see `positional`) become `$r` with names. */
function toWire(param: AbiParameter, value: unknown): WireValue {
  const array = /^(.*)\[(\d*)\]$/.exec(param.type);
  if (array) {
    const element = { ...param, type: array[1]! } as AbiParameter;
    return (value as readonly unknown[]).map((v) => toWire(element, v));
  }
  if (param.type === 'tuple') {
    const components = (param as { components: readonly AbiParameter[] }).components;
    const source = value as Record<string, unknown> & readonly unknown[];
    const items = components.map((c, i) => toWire(c, Array.isArray(source) ? source[i] : source[c.name ?? '']));
    return { $r: items, n: tupleNames(components.map((c) => c.name)) };
  }
  return value as WireValue;
}
