import { DEFAULT_FAMILY, FAMILIES, familyOfKind, isRuntimeKind, manifestRulesOf, runtimeKindOf, type ChainFamilyName } from '../chains/families.ts';
import { ValidationError, type Problem } from '../errors.ts';
import { parseBypassEntry } from './bypass-blocks.ts';
import type { FamilyManifestRules, FamilyNetworkRules } from './family-manifest-rules.ts';
import {
  ADDRESS,
  asRecord,
  checkList,
  createChecker,
  definedOnly,
  EXPECT_ADDRESS,
  isNonNegativeInteger,
  isPositiveInteger,
  optionalString,
  requiredRecord,
  requiredString,
  type Checker,
  type FieldPath,
  type LocateField,
} from './manifest-checker.ts';
import {
  isCustomDataSource,
  type CustomHandler,
  type DataSource,
  type DataSourceProcessor,
  type DataSourceKind,
  type EndpointConfig,
  type Handler,
  type HandlerKind,
  type Mapping,
  type Network,
  type ProjectManifest,
  type Runner,
  type Template,
} from './project-model.ts';

export { formatFieldPath, type FieldPath, type LocateField } from './manifest-checker.ts';

export interface ValidateManifestOptions {
  locate?: LocateField;
  /**
   * For codegen and build, which use only the schema, assets, mapping and handler kinds: problems in
   * what only the node reads (runner, network, start/end blocks, addresses, handler filters) come
   * here instead of failing, and the fields they concern are left out of the result.
   */
  onNodeOnlyProblem?: (problem: Problem) => void;
}

/** The runtime kind of a data source that names none: the default family's (`EthereumDatasourceKind.Runtime`) */
export const RUNTIME_DATASOURCE_KIND = runtimeKindOf(DEFAULT_FAMILY);
export const SPEC_VERSION = '1.0.0';

/** A data source without `startBlock` starts at block 1, as in SubQuery. */
export const DEFAULT_START_BLOCK = 1;

const EXPECT_URL = 'expected an http(s):// or ws(s):// URL';
const DATASOURCE_KINDS: readonly DataSourceKind[] = FAMILIES.map((f) => f.runtimeKind);
/** The families that run custom data sources (a kind with a processor). */
const CUSTOM_KINDS = FAMILIES.flatMap((f) => (f.manifest.customKinds === undefined ? [] : [{ ...f.manifest.customKinds, chainName: f.manifest.chainName }]));
/** The families whose projects take `network.chaintypes`, and the problem when another's does. */
const CHAIN_TYPE_FAMILIES = FAMILIES.filter((f) => f.manifest.network.chainTypes);
const CHAIN_TYPES_ONLY = `only ${CHAIN_TYPE_FAMILIES.map((f) => f.manifest.chainName).join(' or ')} projects (${CHAIN_TYPE_FAMILIES.map((f) => f.runtimeKind).join(' or ')} data sources) take chain types`;

/**
 * Checks a SubQuery manifest (specVersion 1.0.0) of any chain family and returns it normalised.
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
  const networkRules = manifestRulesOf(networkFamily([root.dataSources, root.templates])).network;
  const network = c.nodeOnly(() => checkNetwork(c, ['network'], root.network, networkRules));
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
  if (network !== undefined && FAMILIES.some((f) => f.manifest.network.chainIdOf(network.chainId) !== undefined)) return;
  const c = createChecker(options.locate, undefined);
  c.report(
    ['network'],
    network === undefined
      ? 'required when --network-endpoint is given: the flag replaces network.endpoint, but the chain must come from the manifest; add network: { chainId: "<chain id>" }'
      : 'must identify its chain when --network-endpoint is given',
  );
  c.report(['network', 'network'], `the nested network identity is missing: idx reads it from network.chainId; set network.chainId to ${chainIdHints()}`);
  throw new ValidationError(source, c.problems);
}

/**
 * The family whose chains `network` names: one a data source's or template's kind names other
 * than the default family, else the default's (a kind of no family is left to it).
 */
function networkFamily(lists: readonly unknown[]): ChainFamilyName {
  const kinds = lists.flatMap((list) => (Array.isArray(list) ? list.map((d) => asRecord(d)?.kind).filter((k) => typeof k === 'string') : []));
  return FAMILIES.find((f) => f.name !== DEFAULT_FAMILY && kinds.some((k) => familyOfKind(k) === f.name))?.name ?? DEFAULT_FAMILY;
}

/** What network.chainId should be: the default family's chain id, then the other families' in brackets. */
function chainIdHints(): string {
  const [first, ...others] = FAMILIES.map((f) => f.manifest);
  return [first!.network.chainIdHint, ...others.map((m) => `(for a ${m.chainName} chain, ${m.network.chainIdHint})`)].join(' ');
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

function checkNetwork(c: Checker, path: FieldPath, v: unknown, rules: FamilyNetworkRules): Network | undefined {
  if (v === undefined || v === null) {
    c.report(path, 'required');
    return undefined;
  }
  const rec = asRecord(v);
  if (rec === undefined) {
    c.report(path, 'expected an object with chainId and endpoint');
    return undefined;
  }
  const chainId = rules.chainIdOf(rec.chainId);
  if (rec.chainId === undefined || rec.chainId === null) c.report([...path, 'chainId'], 'required');
  else if (chainId === undefined) c.report([...path, 'chainId'], rules.chainIdExpected);
  let chaintypes: { file: string } | undefined;
  if (rec.chaintypes !== undefined && rec.chaintypes !== null) {
    if (!rules.chainTypes) c.report([...path, 'chaintypes'], CHAIN_TYPES_ONLY);
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
  else if (typeof kind === 'string' && (isRuntimeKind(kind) || CUSTOM_KINDS.some((k) => k.pattern.test(kind)))) return kind as DataSource['kind'];
  else
    c.report(
      [...path, 'kind'],
      `${JSON.stringify(kind)} is not a data source kind idx runs: expected ${DATASOURCE_KINDS.join(' or ')}` +
        CUSTOM_KINDS.map((k) => `, or a custom ${k.chainName} kind with a processor (e.g. ${k.example})`).join(''),
    );
  return undefined;
}

/** A custom data source's `processor: { file, options }` (SubQuery's custom data source processors). */
function checkProcessor(c: Checker, path: FieldPath, v: unknown, kind: string): DataSourceProcessor | undefined {
  const example = manifestRulesOf(familyOfKind(kind)).customKinds?.processorExample;
  const expected = `an object with file (the processor${example === undefined ? '' : `, e.g. ${example}`}) and options`;
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
  if (custom) processor = checkProcessor(c, [...path, 'processor'], rec.processor, kind);
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
  const allowed = Object.keys(manifestRulesOf(familyOfKind(dsKind)).filterKeys) as HandlerKind[];
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

function checkFilter(c: Checker, path: FieldPath, kind: HandlerKind, v: unknown): NonNullable<Handler['filter']> | undefined {
  const filter = asRecord(v);
  if (filter === undefined) {
    c.report(path, 'expected an object');
    return undefined;
  }
  const rules: FamilyManifestRules = manifestRulesOf(familyOfKind(kind));
  const keys = rules.filterKeys[kind]!;
  for (const key of Object.keys(filter)) {
    if (!keys.includes(key)) c.report([...path, key], `unknown filter key for ${kind}; expected ${keys.join(' or ')}`);
  }
  return rules.checkFilter(c, path, kind, filter) as NonNullable<Handler['filter']>;
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
