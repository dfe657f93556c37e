import type { FamilyManifestRules } from '../../project/family-manifest-rules.ts';
import { checkBlockFilter, isNonNegativeInteger, type Checker, type FieldPath } from '../../project/manifest-checker.ts';
import type { BlockFilter } from '../../project/project-model.ts';

/** The Substrate family's part of a SubQuery manifest: its handler kinds and filters, genesis hashes, custom kinds. */

/** Substrate filters of every kind: `[from, to]` spec versions of the runtime a block ran, both ends kept, null for open. */
export interface SpecVersionFilter {
  specVersion?: [number | null, number | null];
}

/** `substrate/EventHandler`: the event's pallet (`module`, e.g. `balances`) and name (`method`, e.g. `Transfer`). */
export interface SubstrateEventFilter extends SpecVersionFilter {
  module?: string;
  method?: string;
}

/** `substrate/CallHandler`: the extrinsic's pallet and call, whether it succeeded, whether it is signed. */
export interface SubstrateCallFilter extends SpecVersionFilter {
  module?: string;
  method?: string;
  success?: boolean;
  isSigned?: boolean;
}

export type SubstrateHandler =
  | { kind: 'substrate/BlockHandler'; handler: string; filter?: BlockFilter & SpecVersionFilter }
  | { kind: 'substrate/EventHandler'; handler: string; filter?: SubstrateEventFilter }
  | { kind: 'substrate/CallHandler'; handler: string; filter?: SubstrateCallFilter };

// A Substrate chain is named by its genesis hash.
const GENESIS_HASH = /^0x[0-9a-fA-F]{64}$/;

export const substrateManifestRules: FamilyManifestRules<SubstrateHandler> = {
  chainName: 'Substrate',
  filterKeys: {
    'substrate/BlockHandler': ['modulo', 'timestamp', 'specVersion'],
    'substrate/EventHandler': ['module', 'method', 'specVersion'],
    'substrate/CallHandler': ['module', 'method', 'success', 'isSigned', 'specVersion'],
  },
  checkFilter(c, path, kind, filter) {
    if (kind === 'substrate/BlockHandler') return { ...checkBlockFilter(c, path, filter), ...checkSpecVersion(c, path, filter) };
    return { ...checkPalletFilter(c, path, filter), ...checkSpecVersion(c, path, filter) };
  },
  network: {
    chainIdOf: (v) => (typeof v === 'string' && GENESIS_HASH.test(v) ? v.toLowerCase() : undefined),
    chainIdExpected: "expected the chain's genesis hash (0x and 64 hex digits)",
    chainIdHint: 'its genesis hash',
    chainTypes: true,
  },
  // SubQuery's custom data source kinds: `substrate/FrontierEvm`, `substrate/Wasm`, …
  customKinds: {
    pattern: /^substrate\/[A-Za-z][A-Za-z0-9_-]*$/,
    example: 'substrate/FrontierEvm',
    processorExample: './node_modules/@subql/frontier-evm-processor/dist/bundle.js',
  },
  typePackages: {
    shims: {
      '@subql/types': {
        SubstrateDatasourceKind: { Runtime: 'substrate/Runtime' },
        SubstrateHandlerKind: { Block: 'substrate/BlockHandler', Call: 'substrate/CallHandler', Event: 'substrate/EventHandler' },
      },
    },
    // imported for their side effects on types only (`import "@polkadot/api-augment"` in SubQuery's starters): empty at run time
    typeOnly: [/^@polkadot\/(api|rpc|types)-augment(\/.*)?$/],
  },
};

/** SubQuery's `specVersion: [from, to]` of any Substrate filter: spec versions, both ends kept, null (or absent) for open. */
function checkSpecVersion(c: Checker, path: FieldPath, f: Record<string, unknown>): SpecVersionFilter {
  const v = f.specVersion;
  if (v === undefined || v === null) return {};
  const end = (x: unknown) => x === undefined || x === null || isNonNegativeInteger(x);
  if (!Array.isArray(v) || v.length > 2 || !v.every(end)) {
    c.report([...path, 'specVersion'], 'expected [from, to]: two spec versions (whole numbers), either null for an open end');
    return {};
  }
  return { specVersion: [(v[0] as number | undefined) ?? null, (v[1] as number | undefined) ?? null] };
}

/** `module`/`method` name a pallet and an event or call, as in the chain's metadata; `success`/`isSigned` are booleans. */
function checkPalletFilter(c: Checker, path: FieldPath, f: Record<string, unknown>): SubstrateEventFilter & SubstrateCallFilter {
  const out: SubstrateEventFilter & SubstrateCallFilter = {};
  for (const key of ['module', 'method'] as const) {
    const v = f[key];
    if (v === undefined || v === null) continue;
    if (typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) out[key] = v;
    else c.report([...path, key], `expected a ${key === 'module' ? 'pallet name, e.g. balances' : 'name, e.g. Transfer'}`);
  }
  for (const key of ['success', 'isSigned'] as const) {
    const v = f[key];
    if (v === undefined || v === null) continue;
    if (typeof v === 'boolean') out[key] = v;
    else c.report([...path, key], 'expected true or false');
  }
  return out;
}
