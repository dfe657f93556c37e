import { familyOfKind } from '../chains/families.ts';
import { ValidationError, type Problem } from '../errors.ts';
import { parseAbiSignature } from './abi-signature.ts';
import { parseBypassEntry } from './bypass-blocks.ts';
import { cronExpressionProblem } from './cron-expression.ts';
import {
  HANDLER_KINDS,
  isCustomDataSource,
  type BlockFilter,
  type CustomHandler,
  type DataSource,
  type DataSourceProcessor,
  type DataSourceKind,
  type EndpointConfig,
  type Handler,
  type HandlerKind,
  type LogFilter,
  type Mapping,
  type Network,
  type ProjectManifest,
  type Runner,
  type SpecVersionFilter,
  type SubstrateCallFilter,
  type SubstrateEventFilter,
  type Template,
  type TransactionFilter,
} from './project-model.ts';

/** A field path as segments, e.g. `['dataSources', 0, 'startBlock']`. */
export type FieldPath = readonly (string | number)[];

/** Finds where a field sits in the source file, so problems can carry line/column. */
export type LocateField = (path: FieldPath) => { line: number; column: number } | undefined;

export interface ValidateManifestOptions {
  locate?: LocateField;
  /**
   * For codegen and build, which use only the schema, assets, mapping and handler kinds: problems in
   * what only the node reads (runner, network, start/end blocks, addresses, handler filters) come
   * here instead of failing, and the fields they concern are left out of the result.
   */
  onNodeOnlyProblem?: (problem: Problem) => void;
}

/** `EthereumDatasourceKind.Runtime` */
export const RUNTIME_DATASOURCE_KIND = 'ethereum/Runtime';
export const SPEC_VERSION = '1.0.0';

/** A data source without `startBlock` starts at block 1, as in SubQuery. */
export const DEFAULT_START_BLOCK = 1;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
// A log topic given as hex; shorter values are left-padded to 32 bytes (SubQuery compares them with zeros stripped).
const TOPIC_HEX = /^0x[0-9a-fA-F]{1,64}$/;
// A 4-byte selector, or a longer prefix of the call data.
const FUNCTION_HEX = /^0x(?:[0-9a-fA-F]{2}){4,}$/;

const EXPECT_ADDRESS = 'expected a 0x-prefixed 20-byte hex address';
const EXPECT_URL = 'expected an http(s):// or ws(s):// URL';
const FILTER_KEYS: Record<HandlerKind, readonly string[]> = {
  'ethereum/BlockHandler': ['modulo', 'timestamp'],
  'ethereum/TransactionHandler': ['from', 'to', 'function'],
  'ethereum/LogHandler': ['topics'],
  'substrate/BlockHandler': ['modulo', 'timestamp', 'specVersion'],
  'substrate/EventHandler': ['module', 'method', 'specVersion'],
  'substrate/CallHandler': ['module', 'method', 'success', 'isSigned', 'specVersion'],
};
const SUBSTRATE_KIND = 'substrate/Runtime';
// SubQuery's custom data source kinds: `substrate/FrontierEvm`, `substrate/Wasm`, …
const CUSTOM_KIND = /^substrate\/[A-Za-z][A-Za-z0-9_-]*$/;
const DATASOURCE_KINDS: readonly DataSourceKind[] = [RUNTIME_DATASOURCE_KIND, SUBSTRATE_KIND];
// A Substrate chain is named by its genesis hash.
const GENESIS_HASH = /^0x[0-9a-fA-F]{64}$/;

/** `dataSources[0].mapping.handlers[1].kind`; keys that are not identifiers are quoted: `endpoint["https://…"]`. */
export function formatFieldPath(path: FieldPath): string {
  if (path.length === 0) return 'manifest';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/**
 * Checks a SubQuery Ethereum manifest (specVersion 1.0.0) and returns it normalised.
 * Every problem is collected with its field path before throwing one ValidationError.
 * Unknown top-level keys are allowed: SubQuery manifests carry extra keys.
 */
export function validateManifest(raw: unknown, source: string, options: ValidateManifestOptions = {}): ProjectManifest {
  const c = createChecker(options.locate, options.onNodeOnlyProblem);
  const root = asRecord(raw);
  if (root === undefined) {
    c.report([], 'expected an object with specVersion, schema, network and dataSources');
    throw new ValidationError(source, c.problems);
  }

  if (root.specVersion === undefined) c.report(['specVersion'], 'required');
  else if (root.specVersion !== SPEC_VERSION) {
    c.report(['specVersion'], `expected "${SPEC_VERSION}" (idx reads SubQuery manifests of specVersion ${SPEC_VERSION})`);
  }
  const name = optionalString(c, ['name'], root.name);
  const version = optionalString(c, ['version'], root.version);
  const description = optionalString(c, ['description'], root.description);
  const repository = optionalString(c, ['repository'], root.repository);
  const runner = root.runner === undefined || root.runner === null ? undefined : c.nodeOnly(() => checkRunner(c, ['runner'], root.runner));
  const schemaRec = requiredRecord(c, ['schema'], root.schema, 'expected an object with file');
  const schemaFile = schemaRec && requiredString(c, ['schema', 'file'], schemaRec.file);
  // The network's chain id is read as the data sources' family names chains (the family itself is checked in load-project).
  const substrate = [root.dataSources, root.templates].some(
    (list) => Array.isArray(list) && list.some((d) => typeof asRecord(d)?.kind === 'string' && familyOfKind(asRecord(d)!.kind as string) === 'substrate'),
  );
  const network = c.nodeOnly(() => checkNetwork(c, ['network'], root.network, substrate));
  const dataSources = checkList(c, ['dataSources'], root.dataSources, true, (p, v) => checkDataSource(c, p, v));
  const templates =
    root.templates === undefined || root.templates === null ? [] : checkList(c, ['templates'], root.templates, false, (p, v) => checkTemplate(c, p, v));
  checkUniqueTemplateNames(c, root.templates);

  if (c.problems.length > 0) throw new ValidationError(source, c.problems);
  return definedOnly({
    specVersion: SPEC_VERSION,
    name,
    version,
    description,
    repository,
    runner,
    schema: { file: schemaFile! },
    network,
    dataSources,
    templates,
  }) as ProjectManifest;
}

/**
 * Used when the node is given `--network-endpoint`: the override replaces the endpoints, but the
 * chain they serve must still come from the manifest. The reference words this as "an object
 * `network` (with a nested `network` object)" and a failure "naming `network` and `network.network`".
 * In SubQuery's Ethereum format that nested identity is `network.chainId`, so for us the nested
 * network object means a `network` object carrying `chainId`. When it is missing or invalid we
 * report both paths SubQuery names and say what to add.
 */
export function requireNetworkForEndpointOverride(raw: unknown, source = 'project manifest', options: ValidateManifestOptions = {}): void {
  const network = asRecord(asRecord(raw)?.network);
  if (network !== undefined && (chainIdOf(network.chainId) !== undefined || (typeof network.chainId === 'string' && GENESIS_HASH.test(network.chainId))))
    return;
  const c = createChecker(options.locate, undefined);
  c.report(
    ['network'],
    network === undefined
      ? 'required when --network-endpoint is given: the flag replaces network.endpoint, but the chain must come from the manifest; add network: { chainId: "<chain id>" }'
      : 'must identify its chain when --network-endpoint is given',
  );
  c.report(
    ['network', 'network'],
    'the nested network identity is missing: idx reads it from network.chainId; set network.chainId to the EVM chain id as a string, e.g. "1" (for a Substrate chain, its genesis hash)',
  );
  throw new ValidationError(source, c.problems);
}

interface Checker {
  problems: Problem[];
  report(path: FieldPath, message: string): void;
  /**
   * Runs a check of fields only the node reads. With `onNodeOnlyProblem`, its problems go there and
   * the result is undefined when there were any; without, they are problems like the rest.
   */
  nodeOnly<T>(check: () => T): T | undefined;
}

function createChecker(locate: LocateField | undefined, onNodeOnlyProblem: ((problem: Problem) => void) | undefined): Checker {
  const problems: Problem[] = [];
  let relaxing = 0;
  let relaxed = 0;
  return {
    problems,
    report(path, message) {
      const at = locate?.(path);
      const problem = at ? { path: formatFieldPath(path), message, line: at.line, column: at.column } : { path: formatFieldPath(path), message };
      if (relaxing > 0 && onNodeOnlyProblem !== undefined) {
        relaxed++;
        onNodeOnlyProblem(problem);
      } else problems.push(problem);
    },
    nodeOnly(check) {
      const before = relaxed;
      relaxing++;
      try {
        const out = check();
        return relaxed === before ? out : undefined;
      } finally {
        relaxing--;
      }
    },
  };
}

function checkRunner(c: Checker, path: FieldPath, v: unknown): Runner | undefined {
  const rec = requiredRecord(c, path, v, 'expected an object with node and query');
  if (rec === undefined) return undefined;
  const node = requiredRecord(c, [...path, 'node'], rec.node, 'expected an object with name and version');
  const query = requiredRecord(c, [...path, 'query'], rec.query, 'expected an object with name and version');
  let nodeOptions: Record<string, boolean> | undefined;
  if (node?.options !== undefined) {
    const opts = requiredRecord(c, [...path, 'node', 'options'], node.options, 'expected an object');
    if (opts !== undefined) {
      nodeOptions = {};
      for (const key of ['historical', 'unsafe', 'unfinalizedBlocks', 'skipTransactions']) {
        const value = opts[key];
        if (value === undefined) continue;
        if (typeof value === 'boolean') nodeOptions[key] = value;
        else c.report([...path, 'node', 'options', key], 'expected true or false');
      }
    }
  }
  const nodeName = node && requiredString(c, [...path, 'node', 'name'], node.name);
  const nodeVersion = node && requiredString(c, [...path, 'node', 'version'], node.version);
  const queryName = query && requiredString(c, [...path, 'query', 'name'], query.name);
  const queryVersion = query && requiredString(c, [...path, 'query', 'version'], query.version);
  return {
    node: definedOnly({ name: nodeName!, version: nodeVersion!, options: nodeOptions }) as Runner['node'],
    query: { name: queryName!, version: queryVersion! },
  };
}

function checkNetwork(c: Checker, path: FieldPath, v: unknown, substrate: boolean): Network | undefined {
  if (v === undefined || v === null) {
    c.report(path, 'required');
    return undefined;
  }
  const rec = asRecord(v);
  if (rec === undefined) {
    c.report(path, 'expected an object with chainId and endpoint');
    return undefined;
  }
  const chainId = substrate
    ? typeof rec.chainId === 'string' && GENESIS_HASH.test(rec.chainId)
      ? rec.chainId.toLowerCase()
      : undefined
    : chainIdOf(rec.chainId);
  if (rec.chainId === undefined || rec.chainId === null) c.report([...path, 'chainId'], 'required');
  else if (chainId === undefined)
    c.report(
      [...path, 'chainId'],
      substrate ? "expected the chain's genesis hash (0x and 64 hex digits)" : 'expected the EVM chain id as a decimal string, e.g. "1"',
    );
  let chaintypes: { file: string } | undefined;
  if (rec.chaintypes !== undefined && rec.chaintypes !== null) {
    if (!substrate) c.report([...path, 'chaintypes'], 'only Substrate projects (substrate/Runtime data sources) take chain types');
    const ct = requiredRecord(c, [...path, 'chaintypes'], rec.chaintypes, 'expected an object with file');
    const file = ct && requiredString(c, [...path, 'chaintypes', 'file'], ct.file);
    if (file !== undefined) chaintypes = { file };
  }

  const endpoints = checkEndpoints(c, [...path, 'endpoint'], rec.endpoint);

  let dictionary: string | string[] | undefined;
  if (typeof rec.dictionary === 'string') {
    checkUrl(c, [...path, 'dictionary'], rec.dictionary);
    dictionary = rec.dictionary;
  } else if (Array.isArray(rec.dictionary)) {
    rec.dictionary.forEach((d, i) => {
      checkUrl(c, [...path, 'dictionary', i], d);
    });
    dictionary = [...(rec.dictionary as string[])];
  } else if (rec.dictionary !== undefined && rec.dictionary !== null) {
    c.report([...path, 'dictionary'], 'expected a URL or a list of URLs');
  }

  let bypassBlocks: (number | string)[] | undefined;
  if (Array.isArray(rec.bypassBlocks)) {
    bypassBlocks = [...(rec.bypassBlocks as (number | string)[])];
    rec.bypassBlocks.forEach((b, i) => {
      if (parseBypassEntry(b) === undefined) c.report([...path, 'bypassBlocks', i], 'expected a block height or a range "from-to"');
    });
  } else if (rec.bypassBlocks !== undefined && rec.bypassBlocks !== null) {
    c.report([...path, 'bypassBlocks'], 'expected a list of block heights or ranges "from-to"');
  }

  return definedOnly({ chainId: chainId!, endpoints, dictionary, bypassBlocks, chaintypes }) as Network;
}

/** `endpoint: string | string[] | { [url]: { headers?, batchSize? } }` → a list; absent is empty (`--network-endpoint` may supply them). */
function checkEndpoints(c: Checker, path: FieldPath, v: unknown): EndpointConfig[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') {
    checkUrl(c, path, v);
    return [{ url: v }];
  }
  if (Array.isArray(v)) {
    const out: EndpointConfig[] = [];
    v.forEach((url, i) => {
      if (checkUrl(c, [...path, i], url)) out.push({ url: url as string });
    });
    return out;
  }
  const rec = asRecord(v);
  if (rec === undefined) {
    c.report(path, 'expected a URL, a list of URLs, or an object { <url>: { headers, batchSize } }');
    return [];
  }
  const out: EndpointConfig[] = [];
  for (const [url, config] of Object.entries(rec)) {
    const at = [...path, url];
    checkUrl(c, at, url);
    if (config === undefined || config === null) {
      out.push({ url });
      continue;
    }
    const cfg = asRecord(config);
    if (cfg === undefined) {
      c.report(at, 'expected an object with headers and batchSize');
      continue;
    }
    const endpoint: EndpointConfig = { url };
    if (cfg.headers !== undefined) {
      const headers = asRecord(cfg.headers);
      if (headers === undefined || !Object.values(headers).every((h) => typeof h === 'string')) {
        c.report([...at, 'headers'], 'expected an object of header names to string values');
      } else endpoint.headers = { ...(headers as Record<string, string>) };
    }
    if (cfg.batchSize !== undefined) {
      if (isPositiveInteger(cfg.batchSize)) endpoint.batchSize = cfg.batchSize;
      else c.report([...at, 'batchSize'], 'expected a positive integer');
    }
    out.push(endpoint);
  }
  return out;
}

function checkDataSource(c: Checker, path: FieldPath, v: unknown): DataSource | undefined {
  const rec = requiredRecord(c, path, v, 'expected an object');
  if (rec === undefined) return undefined;
  const kind = checkKind(c, path, rec.kind);
  let startBlock = DEFAULT_START_BLOCK;
  let endBlock: number | undefined;
  c.nodeOnly(() => {
    if (rec.startBlock !== undefined) {
      if (isNonNegativeInteger(rec.startBlock)) startBlock = rec.startBlock;
      else c.report([...path, 'startBlock'], 'expected a non-negative integer');
    }
    if (rec.endBlock !== undefined && rec.endBlock !== null) {
      if (!isNonNegativeInteger(rec.endBlock)) c.report([...path, 'endBlock'], 'expected a non-negative integer');
      else if (rec.endBlock < startBlock) c.report([...path, 'endBlock'], `must not be below startBlock (${startBlock})`);
      else endBlock = rec.endBlock;
    }
  });
  const common = checkDataSourceCommon(c, path, rec, kind);
  return definedOnly({
    kind: common.kind,
    startBlock,
    endBlock,
    options: common.options,
    assets: common.assets,
    processor: common.processor,
    mapping: common.mapping,
  }) as DataSource;
}

function checkTemplate(c: Checker, path: FieldPath, v: unknown): Template | undefined {
  const rec = requiredRecord(c, path, v, 'expected an object');
  if (rec === undefined) return undefined;
  const name = requiredString(c, [...path, 'name'], rec.name);
  const kind = checkKind(c, path, rec.kind);
  for (const key of ['startBlock', 'endBlock']) {
    if (rec[key] !== undefined) c.report([...path, key], 'not allowed in a template: a template starts at the block where createDynamicDatasource is called');
  }
  const common = checkDataSourceCommon(c, path, rec, kind);
  return definedOnly({ name: name!, ...common }) as Template;
}

function checkUniqueTemplateNames(c: Checker, templates: unknown): void {
  if (!Array.isArray(templates)) return;
  const seen = new Map<string, number>();
  templates.forEach((t, i) => {
    const name = asRecord(t)?.name;
    if (typeof name !== 'string') return;
    const first = seen.get(name);
    if (first === undefined) seen.set(name, i);
    else c.report(['templates', i, 'name'], `"${name}" is already the name of templates[${first}]`);
  });
}

function checkKind(c: Checker, path: FieldPath, kind: unknown): DataSource['kind'] | undefined {
  if (kind === undefined) c.report([...path, 'kind'], 'required');
  else if (DATASOURCE_KINDS.includes(kind as DataSourceKind) || (typeof kind === 'string' && CUSTOM_KIND.test(kind))) return kind as DataSource['kind'];
  else
    c.report(
      [...path, 'kind'],
      `${JSON.stringify(kind)} is not a data source kind idx runs: expected ${DATASOURCE_KINDS.join(' or ')}, or a custom Substrate kind with a processor (e.g. substrate/FrontierEvm)`,
    );
  return undefined;
}

/** A custom data source's `processor: { file, options }` (SubQuery's custom data source processors). */
function checkProcessor(c: Checker, path: FieldPath, v: unknown): DataSourceProcessor | undefined {
  const expected = 'an object with file (the processor, e.g. ./node_modules/@subql/frontier-evm-processor/dist/bundle.js) and options';
  if (v === undefined || v === null) {
    c.report(path, `required for a custom data source: ${expected}`);
    return undefined;
  }
  const rec = requiredRecord(c, path, v, `expected ${expected}`);
  if (rec === undefined) return undefined;
  const file = requiredString(c, [...path, 'file'], rec.file);
  let options: Record<string, unknown> | undefined;
  if (rec.options !== undefined && rec.options !== null) {
    options = asRecord(rec.options);
    if (options === undefined) c.report([...path, 'options'], 'expected an object');
  }
  return file === undefined ? undefined : (definedOnly({ file, options: options && { ...options } }) as DataSourceProcessor);
}

/** What data sources and templates share: kind, options, assets, mapping. */
function checkDataSourceCommon(
  c: Checker,
  path: FieldPath,
  rec: Record<string, unknown>,
  kind: DataSource['kind'] | undefined,
): Pick<DataSource, 'kind' | 'options' | 'assets' | 'processor' | 'mapping'> {
  const assets: Record<string, { file: string }> = {};
  if (rec.assets !== undefined && rec.assets !== null) {
    const assetsRec = asRecord(rec.assets);
    if (assetsRec === undefined) c.report([...path, 'assets'], 'expected an object { <name>: { file } }');
    else {
      for (const [name, asset] of Object.entries(assetsRec)) {
        const a = requiredRecord(c, [...path, 'assets', name], asset, 'expected an object with file');
        const file = a && requiredString(c, [...path, 'assets', name, 'file'], a.file);
        if (file !== undefined) assets[name] = { file };
      }
    }
  }

  const custom = kind !== undefined && isCustomDataSource({ kind });
  let processor: DataSourceProcessor | undefined;
  if (custom) processor = checkProcessor(c, [...path, 'processor'], rec.processor);
  else if (kind !== undefined && rec.processor !== undefined && rec.processor !== null)
    c.report([...path, 'processor'], `only custom data sources take a processor; ${kind} does not`);

  let options: DataSource['options'];
  if (custom && rec.options !== undefined && rec.options !== null)
    c.report([...path, 'options'], 'a custom data source takes its options under processor.options');
  else if (rec.options !== undefined && rec.options !== null) {
    const opts = asRecord(rec.options);
    if (opts === undefined) c.report([...path, 'options'], 'expected an object with abi and address');
    else {
      options = {};
      if (opts.abi !== undefined) {
        if (typeof opts.abi !== 'string') c.report([...path, 'options', 'abi'], 'expected a string naming an entry of assets');
        else if (!Object.hasOwn(asRecord(rec.assets) ?? {}, opts.abi)) {
          const names = Object.keys(asRecord(rec.assets) ?? {});
          c.report(
            [...path, 'options', 'abi'],
            `"${opts.abi}" is not an entry of assets (${names.length === 0 ? 'assets is empty' : `have: ${names.join(', ')}`})`,
          );
        } else options.abi = opts.abi;
      }
      if (opts.address !== undefined && opts.address !== null) {
        if (typeof opts.address === 'string' && ADDRESS.test(opts.address)) options.address = opts.address;
        else c.nodeOnly(() => c.report([...path, 'options', 'address'], EXPECT_ADDRESS));
      }
    }
  }

  const mapping = checkMapping(c, [...path, 'mapping'], rec.mapping, kind ?? RUNTIME_DATASOURCE_KIND);
  return definedOnly({ kind: kind ?? RUNTIME_DATASOURCE_KIND, options, assets, processor, mapping: mapping! }) as Pick<
    DataSource,
    'kind' | 'options' | 'assets' | 'processor' | 'mapping'
  >;
}

function checkMapping(c: Checker, path: FieldPath, v: unknown, kind: DataSource['kind']): Mapping | undefined {
  const rec = requiredRecord(c, path, v, 'expected an object with file and handlers');
  if (rec === undefined) return undefined;
  const file = requiredString(c, [...path, 'file'], rec.file);
  const handlers = checkList(c, [...path, 'handlers'], rec.handlers, true, (p, h) => checkHandler(c, p, h, kind));
  if (Array.isArray(rec.handlers) && rec.handlers.length === 0) c.report([...path, 'handlers'], 'expected at least one handler');
  return { file: file!, handlers };
}

function checkHandler(c: Checker, path: FieldPath, v: unknown, dsKind: DataSource['kind']): Handler | undefined {
  const rec = requiredRecord(c, path, v, 'expected an object with kind and handler');
  if (rec === undefined) return undefined;
  const handler = requiredString(c, [...path, 'handler'], rec.handler);
  if (isCustomDataSource({ kind: dsKind })) return checkCustomHandler(c, path, rec, handler);
  const allowed = HANDLER_KINDS[dsKind as DataSourceKind];
  let kind: HandlerKind | undefined;
  if (rec.kind === undefined) c.report([...path, 'kind'], 'required');
  else if (!allowed.includes(rec.kind as HandlerKind)) c.report([...path, 'kind'], `expected one of ${allowed.join(', ')}`);
  else kind = rec.kind as HandlerKind;

  if (rec.filter === undefined || rec.filter === null || kind === undefined) return { kind: kind!, handler: handler! } as Handler;
  const filter = c.nodeOnly(() => checkFilter(c, [...path, 'filter'], kind, rec.filter));
  return (filter === undefined ? { kind, handler: handler! } : { kind, handler: handler!, filter }) as Handler;
}

/** A custom data source's handler: its kind and filter are the processor's to check (when the node loads it). */
function checkCustomHandler(c: Checker, path: FieldPath, rec: Record<string, unknown>, handler: string | undefined): CustomHandler | undefined {
  const processorKind = requiredString(c, [...path, 'kind'], rec.kind);
  let filter: Record<string, unknown> | undefined;
  if (rec.filter !== undefined && rec.filter !== null) {
    filter = asRecord(rec.filter);
    if (filter === undefined) c.report([...path, 'filter'], 'expected an object');
  }
  return definedOnly({ kind: 'custom', processorKind: processorKind!, handler: handler!, filter: filter && structuredClone(filter) }) as CustomHandler;
}

function checkFilter(
  c: Checker,
  path: FieldPath,
  kind: HandlerKind,
  v: unknown,
): BlockFilter | TransactionFilter | LogFilter | SubstrateEventFilter | SubstrateCallFilter | undefined {
  const filter = asRecord(v);
  if (filter === undefined) {
    c.report(path, 'expected an object');
    return undefined;
  }
  for (const key of Object.keys(filter)) {
    if (!FILTER_KEYS[kind].includes(key)) c.report([...path, key], `unknown filter key for ${kind}; expected ${FILTER_KEYS[kind].join(' or ')}`);
  }
  if (kind === 'ethereum/BlockHandler') return checkBlockFilter(c, path, filter);
  if (kind === 'substrate/BlockHandler') return { ...checkBlockFilter(c, path, filter), ...checkSpecVersion(c, path, filter) };
  if (kind === 'substrate/EventHandler' || kind === 'substrate/CallHandler')
    return { ...checkSubstrateFilter(c, path, filter), ...checkSpecVersion(c, path, filter) };
  if (kind === 'ethereum/TransactionHandler') return checkTransactionFilter(c, path, filter);
  return checkLogFilter(c, path, filter);
}

function checkBlockFilter(c: Checker, path: FieldPath, f: Record<string, unknown>): BlockFilter {
  const out: BlockFilter = {};
  if (f.modulo !== undefined && f.modulo !== null) {
    if (isPositiveInteger(f.modulo)) out.modulo = f.modulo;
    else c.report([...path, 'modulo'], 'expected a positive integer');
  }
  if (f.timestamp !== undefined && f.timestamp !== null) {
    if (typeof f.timestamp !== 'string') c.report([...path, 'timestamp'], 'expected a cron expression string, e.g. "0 */1 * * *"');
    else {
      const problem = cronExpressionProblem(f.timestamp);
      if (problem === undefined) out.timestamp = f.timestamp;
      else c.report([...path, 'timestamp'], problem);
    }
  }
  return out;
}

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
function checkSubstrateFilter(c: Checker, path: FieldPath, f: Record<string, unknown>): SubstrateEventFilter & SubstrateCallFilter {
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

function checkList<T>(c: Checker, path: FieldPath, v: unknown, required: boolean, each: (path: FieldPath, item: unknown) => T | undefined): T[] {
  if (v === undefined || v === null) {
    if (required) c.report(path, 'required');
    return [];
  }
  if (!Array.isArray(v)) {
    c.report(path, 'expected a list');
    return [];
  }
  const out: T[] = [];
  v.forEach((item, i) => {
    const checked = each([...path, i], item);
    if (checked !== undefined) out.push(checked);
  });
  return out;
}

function requiredRecord(c: Checker, path: FieldPath, v: unknown, expected: string): Record<string, unknown> | undefined {
  if (v === undefined || v === null) {
    c.report(path, 'required');
    return undefined;
  }
  const rec = asRecord(v);
  if (rec === undefined) c.report(path, expected);
  return rec;
}

function requiredString(c: Checker, path: FieldPath, v: unknown): string | undefined {
  if (v === undefined || v === null) c.report(path, 'required');
  else if (typeof v !== 'string' || v.trim() === '') c.report(path, 'expected a non-empty string');
  else return v;
  return undefined;
}

function optionalString(c: Checker, path: FieldPath, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  c.report(path, 'expected a string');
  return undefined;
}

/** A plain object, or a Map (project.ts writes `assets: new Map([...])`). */
function asRecord(v: unknown): Record<string, unknown> | undefined {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, val]) => [String(k), val]));
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  return undefined;
}

/**
 * EVM chain ids are decimal strings (the node compares them with eth_chainId); an unquoted YAML
 * number is accepted and read as its decimal string.
 */
function chainIdOf(v: unknown): string | undefined {
  if (typeof v === 'string' && /^[0-9]+$/.test(v)) return v;
  if (isNonNegativeInteger(v)) return String(v);
  return undefined;
}

/** Reports a value that is not one http(s)/ws(s) URL; true when it is one. */
function checkUrl(c: Checker, path: FieldPath, v: unknown): boolean {
  if (typeof v !== 'string' || !isUrl(v)) {
    const why = typeof v === 'string' && /\S/.test(v) && v !== v.trim() ? ' (it has spaces, tabs or line breaks around it)' : '';
    c.report(path, `${EXPECT_URL}${why}`);
    return false;
  }
  // new URL() takes "https://a,https://b" as one URL with host "a,https": a list written as one string.
  if (/[,;\s]+(https?|wss?):\/\//i.test(v)) {
    c.report(path, `${EXPECT_URL}: this is several URLs in one string; write them as a list, e.g. ["https://a", "https://b"]`);
    return false;
  }
  return true;
}

function isUrl(s: string): boolean {
  if (!/^(https?|wss?):\/\/\S+$/i.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

function isNonNegativeInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isPositiveInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

function definedOnly<T extends Record<string, unknown>>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}
