import { parseAbiSignature } from '../../project/abi-signature.ts';
import type { FamilyManifestRules } from '../../project/family-manifest-rules.ts';
import { ADDRESS, checkBlockFilter, EXPECT_ADDRESS, isNonNegativeInteger, type Checker, type FieldPath } from '../../project/manifest-checker.ts';
import type { BlockFilter } from '../../project/project-model.ts';

/** The EVM family's part of a SubQuery manifest: its handler kinds and filters, and chain ids. */

export interface TransactionFilter {
  from?: string;
  /** null means contract creation */
  to?: string | null;
  /** a signature like `transfer(address,uint256)` or a 4-byte selector; null or `0x` means no input */
  function?: string | null;
}

export interface LogFilter {
  /** topics[0..3]: an event signature, a hex value, null (any) or `!null` (present) */
  topics?: (string | null)[];
}

export type EthereumHandler =
  | { kind: 'ethereum/BlockHandler'; handler: string; filter?: BlockFilter }
  | { kind: 'ethereum/TransactionHandler'; handler: string; filter?: TransactionFilter }
  | { kind: 'ethereum/LogHandler'; handler: string; filter?: LogFilter };

// A log topic given as hex; shorter values are left-padded to 32 bytes (SubQuery compares them with zeros stripped).
const TOPIC_HEX = /^0x[0-9a-fA-F]{1,64}$/;
// A 4-byte selector, or a longer prefix of the call data.
const FUNCTION_HEX = /^0x(?:[0-9a-fA-F]{2}){4,}$/;

export const ethereumManifestRules: FamilyManifestRules<EthereumHandler> = {
  chainName: 'EVM',
  filterKeys: {
    'ethereum/BlockHandler': ['modulo', 'timestamp'],
    'ethereum/TransactionHandler': ['from', 'to', 'function'],
    'ethereum/LogHandler': ['topics'],
  },
  checkFilter(c, path, kind, filter) {
    if (kind === 'ethereum/BlockHandler') return checkBlockFilter(c, path, filter);
    if (kind === 'ethereum/TransactionHandler') return checkTransactionFilter(c, path, filter);
    return checkLogFilter(c, path, filter);
  },
  network: {
    chainIdOf,
    chainIdExpected: 'expected the EVM chain id as a decimal string, e.g. "1"',
    chainIdHint: 'the EVM chain id as a string, e.g. "1"',
    chainTypes: false,
  },
  typePackages: {
    shims: {
      '@subql/types-ethereum': {
        EthereumDatasourceKind: { Runtime: 'ethereum/Runtime' },
        EthereumHandlerKind: { Block: 'ethereum/BlockHandler', Call: 'ethereum/TransactionHandler', Event: 'ethereum/LogHandler' },
      },
    },
    typeOnly: [],
  },
};

/**
 * EVM chain ids are decimal strings (the node compares them with eth_chainId); an unquoted YAML
 * number is accepted and read as its decimal string.
 */
function chainIdOf(v: unknown): string | undefined {
  if (typeof v === 'string' && /^[0-9]+$/.test(v)) return v;
  if (isNonNegativeInteger(v)) return String(v);
  return undefined;
}

function checkTransactionFilter(c: Checker, path: FieldPath, f: Record<string, unknown>): TransactionFilter {
  const out: TransactionFilter = {};
  if (f.from !== undefined) {
    if (typeof f.from === 'string' && ADDRESS.test(f.from)) out.from = f.from;
    else c.report([...path, 'from'], EXPECT_ADDRESS);
  }
  if (f.to !== undefined) {
    if (f.to === null || (typeof f.to === 'string' && ADDRESS.test(f.to))) out.to = f.to;
    else c.report([...path, 'to'], `${EXPECT_ADDRESS}, or null for contract creation`);
  }
  if (f.function !== undefined) {
    const fn = f.function;
    if (fn === null || fn === '0x' || (typeof fn === 'string' && FUNCTION_HEX.test(fn))) out.function = fn;
    else {
      const parsed = typeof fn === 'string' && fn.includes('(') ? parseAbiSignature(fn) : undefined;
      if (parsed !== undefined && !('error' in parsed)) out.function = fn as string;
      else {
        const why = parsed && 'error' in parsed ? ` (${parsed.error})` : '';
        c.report(
          [...path, 'function'],
          `expected a function signature like transfer(address,uint256), a 0x 4-byte selector, or null / "0x" for no input${why}`,
        );
      }
    }
  }
  return out;
}

function checkLogFilter(c: Checker, path: FieldPath, f: Record<string, unknown>): LogFilter {
  if (f.topics === undefined || f.topics === null) return {};
  if (!Array.isArray(f.topics)) {
    c.report([...path, 'topics'], 'expected a list of up to 4 topics');
    return {};
  }
  if (f.topics.length > 4) c.report([...path, 'topics'], `expected at most 4 topics, got ${f.topics.length}`);
  const topics: (string | null)[] = [];
  f.topics.forEach((t, i) => {
    if (t === null || t === undefined) return topics.push(null);
    if (t === '!null' || (typeof t === 'string' && TOPIC_HEX.test(t))) return topics.push(t);
    const parsed = typeof t === 'string' && t.includes('(') ? parseAbiSignature(t) : undefined;
    if (parsed !== undefined && !('error' in parsed)) return topics.push(t as string);
    const why = parsed && 'error' in parsed ? ` (${parsed.error})` : '';
    c.report(
      [...path, 'topics', i],
      `expected an event signature like Transfer(address,address,uint256), a 0x hex value of at most 32 bytes, null or "!null"${why}`,
    );
  });
  return { topics };
}
