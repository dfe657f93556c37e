import t from 'tap';
import { ValidationError } from '../errors.ts';
import { formatFieldPath, requireNetworkForEndpointOverride, validateManifest } from './validate-manifest.ts';

/** The SubQuery ERC20 starter, as its project.yaml reads once parsed. */
function starter(): any {
  return {
    specVersion: '1.0.0',
    version: '0.0.1',
    name: 'ethereum-subql-starter',
    description: 'starter',
    runner: { node: { name: '@subql/node-ethereum', version: '>=3.0.0' }, query: { name: '@subql/query', version: '*' } },
    schema: { file: './schema.graphql' },
    network: { chainId: '1', endpoint: ['https://eth.llamarpc.com'] },
    dataSources: [
      {
        kind: 'ethereum/Runtime',
        startBlock: 4719568,
        options: { abi: 'erc20', address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2' },
        assets: { erc20: { file: './abis/erc20.abi.json' } },
        mapping: {
          file: './dist/index.js',
          handlers: [
            { kind: 'ethereum/TransactionHandler', handler: 'handleTransaction', filter: { function: 'approve(address spender, uint256 rawAmount)' } },
            { kind: 'ethereum/LogHandler', handler: 'handleLog', filter: { topics: ['Transfer(address indexed from, address indexed to, uint256 amount)'] } },
          ],
        },
      },
    ],
    repository: 'https://github.com/subquery/ethereum-subql-starter',
  };
}

/** The problems (as `path: message`) validating a changed starter reports. */
function problemsOf(change: (m: any) => void): string[] {
  const m = starter();
  change(m);
  try {
    validateManifest(m, 'project.yaml');
  } catch (err) {
    if (err instanceof ValidationError) return err.problems.map((p) => `${p.path}: ${p.message}`);
    throw err;
  }
  return [];
}

const handler = (m: any, i: number) => m.dataSources[0].mapping.handlers[i];
const EXPECT_KIND = 'expected one of ethereum/BlockHandler, ethereum/TransactionHandler, ethereum/LogHandler';
const EXPECT_ADDRESS = 'expected a 0x-prefixed 20-byte hex address';
const EXPECT_TOPIC = 'expected an event signature like Transfer(address,address,uint256), a 0x hex value of at most 32 bytes, null or "!null"';
const EXPECT_FUNCTION = 'expected a function signature like transfer(address,uint256), a 0x 4-byte selector, or null / "0x" for no input';

t.test('the starter manifest is valid and normalised', async (t) => {
  const m = validateManifest(starter(), 'project.yaml');
  t.same(m.network, { chainId: '1', endpoints: [{ url: 'https://eth.llamarpc.com' }] });
  t.equal(m.dataSources[0]!.startBlock, 4719568);
  t.same(m.dataSources[0]!.assets, { erc20: { file: './abis/erc20.abi.json' } });
  t.same(m.templates, []);
  t.equal(m.name, 'ethereum-subql-starter');
  t.same(m.runner, { node: { name: '@subql/node-ethereum', version: '>=3.0.0' }, query: { name: '@subql/query', version: '*' } });
});

t.test('unknown top-level keys are allowed; runner is optional', async (t) => {
  t.same(
    problemsOf((m) => ((m.exports = { extra: './src/extra.ts' }), (m.somethingElse = 1), delete m.runner)),
    [],
  );
});

t.test('every problem is collected, with its path, in one error', async (t) => {
  const problems = problemsOf((m) => {
    delete m.network.chainId;
    m.dataSources[0].startBlock = -1;
    handler(m, 1).kind = 'ethereum/EventHandler';
  });
  t.same(problems, [
    'network.chainId: required',
    'dataSources[0].startBlock: expected a non-negative integer',
    `dataSources[0].mapping.handlers[1].kind: ${EXPECT_KIND}`,
  ]);
  const err = t.throws(() => validateManifest({ ...starter(), specVersion: '0.2.0' }, '/p/project.yaml')) as ValidationError;
  t.equal(err.code, 'VALIDATION_FAILED');
  t.match(err.message, /^\/p\/project\.yaml is invalid:\n {2}- specVersion: expected "1\.0\.0"/);
});

t.test('top level', async (t) => {
  t.same(
    problemsOf(() => {}),
    [],
  );
  const notObject = t.throws(() => validateManifest('nope', 'project.yaml')) as ValidationError;
  t.same(notObject.problems, [{ path: 'manifest', message: 'expected an object with specVersion, schema, network and dataSources' }]);
  t.same(
    problemsOf((m) => delete m.specVersion),
    ['specVersion: required'],
  );
  t.same(
    problemsOf((m) => (m.specVersion = '0.2.0')),
    ['specVersion: expected "1.0.0" (idx reads SubQuery manifests of specVersion 1.0.0)'],
  );
  t.same(
    problemsOf((m) => (m.name = 3)),
    ['name: expected a string'],
  );
  t.same(
    problemsOf((m) => (m.version = [])),
    ['version: expected a string'],
  );
  t.same(
    problemsOf((m) => (m.description = {})),
    ['description: expected a string'],
  );
  t.same(
    problemsOf((m) => (m.repository = false)),
    ['repository: expected a string'],
  );
  t.same(
    problemsOf((m) => delete m.schema),
    ['schema: required'],
  );
  t.same(
    problemsOf((m) => (m.schema = './schema.graphql')),
    ['schema: expected an object with file'],
  );
  t.same(
    problemsOf((m) => delete m.schema.file),
    ['schema.file: required'],
  );
  t.same(
    problemsOf((m) => (m.schema.file = '')),
    ['schema.file: expected a non-empty string'],
  );
});

t.test('runner', async (t) => {
  t.same(
    problemsOf((m) => (m.runner = 'node')),
    ['runner: expected an object with node and query'],
  );
  t.same(
    problemsOf((m) => delete m.runner.node),
    ['runner.node: required'],
  );
  t.same(
    problemsOf((m) => (m.runner.query = 1)),
    ['runner.query: expected an object with name and version'],
  );
  t.same(
    problemsOf((m) => delete m.runner.node.name),
    ['runner.node.name: required'],
  );
  t.same(
    problemsOf((m) => delete m.runner.node.version),
    ['runner.node.version: required'],
  );
  t.same(
    problemsOf((m) => delete m.runner.query.name),
    ['runner.query.name: required'],
  );
  t.same(
    problemsOf((m) => (m.runner.query.version = 2)),
    ['runner.query.version: expected a non-empty string'],
  );
  t.same(
    problemsOf((m) => (m.runner.node.options = 'x')),
    ['runner.node.options: expected an object'],
  );
  t.same(
    problemsOf((m) => (m.runner.node.options = { historical: 'yes', unsafe: true })),
    ['runner.node.options.historical: expected true or false'],
  );
  const opts = { historical: false, unsafe: true, unfinalizedBlocks: true, skipTransactions: false };
  t.same(
    validateManifest({ ...starter(), runner: { ...starter().runner, node: { ...starter().runner.node, options: opts } } }, 'p').runner?.node.options,
    opts,
  );
});

t.test('network', async (t) => {
  t.same(
    problemsOf((m) => delete m.network),
    ['network: required'],
  );
  t.same(
    problemsOf((m) => (m.network = 'mainnet')),
    ['network: expected an object with chainId and endpoint'],
  );
  t.same(
    problemsOf((m) => (m.network = [])),
    ['network: expected an object with chainId and endpoint'],
  );
  t.same(
    problemsOf((m) => delete m.network.chainId),
    ['network.chainId: required'],
  );
  for (const chainId of [{ id: 1 }, '', 'mainnet', '0x1', -1]) {
    t.same(
      problemsOf((m) => (m.network.chainId = chainId)),
      ['network.chainId: expected the EVM chain id as a decimal string, e.g. "1"'],
      JSON.stringify(chainId),
    );
  }
  // an unquoted YAML number is read as its decimal string
  t.equal(validateManifest({ ...starter(), network: { chainId: 137 } }, 'p').network?.chainId, '137');

  t.same(
    problemsOf((m) => (m.network.dictionary = 'not a url')),
    ['network.dictionary: expected an http(s):// or ws(s):// URL'],
  );
  t.same(
    problemsOf((m) => (m.network.dictionary = ['https://d.example', 3])),
    ['network.dictionary[1]: expected an http(s):// or ws(s):// URL'],
  );
  t.same(
    problemsOf((m) => (m.network.dictionary = 5)),
    ['network.dictionary: expected a URL or a list of URLs'],
  );
  t.same(
    problemsOf((m) => (m.network.bypassBlocks = [1, '10-20', -1, '30-20', 'x'])),
    [
      'network.bypassBlocks[2]: expected a block height or a range "from-to"',
      'network.bypassBlocks[3]: expected a block height or a range "from-to"',
      'network.bypassBlocks[4]: expected a block height or a range "from-to"',
    ],
  );
  t.same(
    problemsOf((m) => (m.network.bypassBlocks = 5)),
    ['network.bypassBlocks: expected a list of block heights or ranges "from-to"'],
  );
});

t.test('network.endpoint: string, list or object, normalised to endpoints', async (t) => {
  const endpointsOf = (endpoint: unknown) => validateManifest({ ...starter(), network: { chainId: '1', endpoint } }, 'p').network?.endpoints;
  t.same(endpointsOf(undefined), [], 'absent: --network-endpoint may give them');
  t.same(endpointsOf('wss://a.example/ws'), [{ url: 'wss://a.example/ws' }]);
  t.same(endpointsOf(['https://a.example', 'http://127.0.0.1:8545']), [{ url: 'https://a.example' }, { url: 'http://127.0.0.1:8545' }]);
  t.same(
    endpointsOf({
      'https://a.example': { headers: { 'x-api-key': 'k' }, batchSize: 5 },
      'https://b.example': {},
      'https://c.example': null,
    }),
    [{ url: 'https://a.example', headers: { 'x-api-key': 'k' }, batchSize: 5 }, { url: 'https://b.example' }, { url: 'https://c.example' }],
  );
  t.same(
    problemsOf((m) => (m.network.endpoint = 'eth.llamarpc.com')),
    ['network.endpoint: expected an http(s):// or ws(s):// URL'],
  );
  t.same(
    problemsOf((m) => (m.network.endpoint = ['https://ok.example', 'ftp://x'])),
    ['network.endpoint[1]: expected an http(s):// or ws(s):// URL'],
  );
  t.same(
    problemsOf((m) => (m.network.endpoint = 8545)),
    ['network.endpoint: expected a URL, a list of URLs, or an object { <url>: { headers, batchSize } }'],
  );
  t.same(
    problemsOf(
      (m) =>
        (m.network.endpoint = {
          'ftp://x': {},
          'https://a.example': { headers: { key: 1 }, batchSize: 0 },
          'https://b.example': 'fast',
        }),
    ),
    [
      'network.endpoint["ftp://x"]: expected an http(s):// or ws(s):// URL',
      'network.endpoint["https://a.example"].headers: expected an object of header names to string values',
      'network.endpoint["https://a.example"].batchSize: expected a positive integer',
      'network.endpoint["https://b.example"]: expected an object with headers and batchSize',
    ],
  );
});

t.test('data sources', async (t) => {
  t.same(
    problemsOf((m) => delete m.dataSources),
    ['dataSources: required'],
  );
  t.same(
    problemsOf((m) => (m.dataSources = {})),
    ['dataSources: expected a list'],
  );
  t.same(
    problemsOf((m) => (m.dataSources = ['x'])),
    ['dataSources[0]: expected an object'],
  );
  t.same(
    problemsOf((m) => delete m.dataSources[0].kind),
    ['dataSources[0].kind: required'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].kind = 'ethereum/FrontierEvm')),
    [
      'dataSources[0].kind: "ethereum/FrontierEvm" is not a data source kind idx runs: expected ethereum/Runtime or substrate/Runtime, or a custom Substrate kind with a processor (e.g. substrate/FrontierEvm)',
    ],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].startBlock = '4719568')),
    ['dataSources[0].startBlock: expected a non-negative integer'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].startBlock = 1.5)),
    ['dataSources[0].startBlock: expected a non-negative integer'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].endBlock = 10)),
    ['dataSources[0].endBlock: must not be below startBlock (4719568)'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].endBlock = -5)),
    ['dataSources[0].endBlock: expected a non-negative integer'],
  );
  t.equal(validateManifest({ ...starter(), dataSources: [{ ...starter().dataSources[0], endBlock: 4719600 }] }, 'p').dataSources[0]!.endBlock, 4719600);
  const noStart = starter();
  delete noStart.dataSources[0].startBlock;
  t.equal(validateManifest(noStart, 'p').dataSources[0]!.startBlock, 1, 'SubQuery starts at block 1 without startBlock');
});

t.test('assets and options', async (t) => {
  t.same(
    problemsOf((m) => (m.dataSources[0].assets = ['./abis/erc20.abi.json'])),
    ['dataSources[0].assets: expected an object { <name>: { file } }', 'dataSources[0].options.abi: "erc20" is not an entry of assets (assets is empty)'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].assets.erc20 = './abis/erc20.abi.json')),
    ['dataSources[0].assets.erc20: expected an object with file'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].assets.erc20 = {})),
    ['dataSources[0].assets.erc20.file: required'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].assets['Erc20.v2'] = { file: 7 })),
    ['dataSources[0].assets["Erc20.v2"].file: expected a non-empty string'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].options.abi = 'Erc20')),
    ['dataSources[0].options.abi: "Erc20" is not an entry of assets (have: erc20)'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].options.abi = 1)),
    ['dataSources[0].options.abi: expected a string naming an entry of assets'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].options = 'erc20')),
    ['dataSources[0].options: expected an object with abi and address'],
  );
  for (const address of [
    '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc',
    'C02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    '0xZ02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    12,
  ]) {
    t.same(
      problemsOf((m) => (m.dataSources[0].options.address = address)),
      [`dataSources[0].options.address: ${EXPECT_ADDRESS}`],
      String(address),
    );
  }
  // project.ts writes assets as a Map
  const m = starter();
  m.dataSources[0].assets = new Map([['erc20', { file: './abis/erc20.abi.json' }]]);
  t.same(validateManifest(m, 'project.ts').dataSources[0]!.assets, { erc20: { file: './abis/erc20.abi.json' } });
});

t.test('mapping and handlers', async (t) => {
  t.same(
    problemsOf((m) => delete m.dataSources[0].mapping),
    ['dataSources[0].mapping: required'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].mapping = './dist/index.js')),
    ['dataSources[0].mapping: expected an object with file and handlers'],
  );
  t.same(
    problemsOf((m) => delete m.dataSources[0].mapping.file),
    ['dataSources[0].mapping.file: required'],
  );
  t.same(
    problemsOf((m) => delete m.dataSources[0].mapping.handlers),
    ['dataSources[0].mapping.handlers: required'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].mapping.handlers = [])),
    ['dataSources[0].mapping.handlers: expected at least one handler'],
  );
  t.same(
    problemsOf((m) => (m.dataSources[0].mapping.handlers[0] = 'handleLog')),
    ['dataSources[0].mapping.handlers[0]: expected an object with kind and handler'],
  );
  t.same(
    problemsOf((m) => delete handler(m, 0).kind),
    ['dataSources[0].mapping.handlers[0].kind: required'],
  );
  t.same(
    problemsOf((m) => (handler(m, 1).kind = 'ethereum/CallHandler')),
    [`dataSources[0].mapping.handlers[1].kind: ${EXPECT_KIND}`],
  );
  t.same(
    problemsOf((m) => delete handler(m, 0).handler),
    ['dataSources[0].mapping.handlers[0].handler: required'],
  );
  t.same(
    problemsOf((m) => (handler(m, 0).handler = '')),
    ['dataSources[0].mapping.handlers[0].handler: expected a non-empty string'],
  );
  t.same(
    problemsOf((m) => (handler(m, 0).filter = 'approve')),
    ['dataSources[0].mapping.handlers[0].filter: expected an object'],
  );
  t.same(
    problemsOf((m) => (handler(m, 1).filter = { topic: ['Transfer(address,address,uint256)'] })),
    ['dataSources[0].mapping.handlers[1].filter.topic: unknown filter key for ethereum/LogHandler; expected topics'],
  );
  t.same(
    problemsOf((m) => (handler(m, 0).filter = null)),
    [],
    'an empty `filter:` in YAML is no filter',
  );
});

t.test('block handler filters', async (t) => {
  const block = (filter: unknown) => (m: any) => (m.dataSources[0].mapping.handlers = [{ kind: 'ethereum/BlockHandler', handler: 'handleBlock', filter }]);
  const at = 'dataSources[0].mapping.handlers[0].filter';
  t.same(problemsOf(block({ modulo: 100 })), []);
  t.same(problemsOf(block({ timestamp: '*/5 * * * *' })), []);
  t.same(problemsOf(block({ timestamp: '0 0 */1 * * MON-FRI' })), []);
  t.same(problemsOf(block({ modulo: 0 })), [`${at}.modulo: expected a positive integer`]);
  t.same(problemsOf(block({ modulo: '10' })), [`${at}.modulo: expected a positive integer`]);
  t.same(problemsOf(block({ timestamp: 5 })), [`${at}.timestamp: expected a cron expression string, e.g. "0 */1 * * *"`]);
  t.same(problemsOf(block({ timestamp: '* * *' })), [
    `${at}.timestamp: expected a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got 3 fields`,
  ]);
  t.same(problemsOf(block({ timestamp: '0 25 * * *' })), [`${at}.timestamp: cron field 2 (hour) "25": values must be 0-23`]);
  t.same(problemsOf(block({ modulo: 5, topics: [] })), [`${at}.topics: unknown filter key for ethereum/BlockHandler; expected modulo or timestamp`]);
});

t.test('transaction handler filters', async (t) => {
  const tx = (filter: unknown) => (m: any) => (handler(m, 0).filter = filter);
  const at = 'dataSources[0].mapping.handlers[0].filter';
  t.same(problemsOf(tx({ from: '0x60781C2586D68229fde47564546784ab3fACA982', to: null })), [], 'to: null is contract creation');
  t.same(problemsOf(tx({ to: '0x60781C2586D68229fde47564546784ab3fACA982' })), []);
  for (const fn of [
    'transfer(address,uint256)',
    'function approve(address spender, uint256 rawAmount)',
    '0x095ea7b3',
    '0x7ff36ab500000000000000000000000000000000000000000000000000000000',
    '0x',
    null,
  ]) {
    t.same(problemsOf(tx({ function: fn })), [], `function ${fn}`);
  }
  t.same(problemsOf(tx({ from: 'alice' })), [`${at}.from: ${EXPECT_ADDRESS}`]);
  t.same(problemsOf(tx({ from: null })), [`${at}.from: ${EXPECT_ADDRESS}`]);
  t.same(problemsOf(tx({ to: '0x1234' })), [`${at}.to: ${EXPECT_ADDRESS}, or null for contract creation`]);
  t.same(problemsOf(tx({ function: 'approve' })), [`${at}.function: ${EXPECT_FUNCTION}`]);
  t.same(problemsOf(tx({ function: '0x095ea7' })), [`${at}.function: ${EXPECT_FUNCTION}`]);
  t.same(problemsOf(tx({ function: 'approve(address,uint)x' })), [`${at}.function: ${EXPECT_FUNCTION} (unexpected "x" after the parameters)`]);
  t.same(problemsOf(tx({ function: 'approve(adress,uint256)' })), [`${at}.function: ${EXPECT_FUNCTION} (unknown type "adress")`]);
  t.same(problemsOf(tx({ topics: [] })), [`${at}.topics: unknown filter key for ethereum/TransactionHandler; expected from or to or function`]);
});

t.test('log handler filters', async (t) => {
  const log = (topics: unknown) => (m: any) => (handler(m, 1).filter = { topics });
  const at = 'dataSources[0].mapping.handlers[1].filter.topics';
  t.same(problemsOf(log(['Transfer(address,address,uint256)', null, '!null', '0x000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'])), []);
  t.same(problemsOf(log(['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', '0x0000000000000000000000000000000000000000'])), []);
  t.same(problemsOf(log(['event Transfer(address indexed from, address indexed to, uint256 value)'])), []);
  t.same(problemsOf(log([null, null, null, null, null])), [`${at}: expected at most 4 topics, got 5`]);
  t.same(problemsOf(log(['Transfer'])), [`${at}[0]: ${EXPECT_TOPIC}`]);
  t.same(problemsOf(log(['Transfer(address,address,uint256)', 'Transfer(address,,uint256)'])), [`${at}[1]: ${EXPECT_TOPIC} (expected a type at character 18)`]);
  t.same(problemsOf(log([`0x${'00'.repeat(33)}`])), [`${at}[0]: ${EXPECT_TOPIC}`]);
  t.same(problemsOf(log([42])), [`${at}[0]: ${EXPECT_TOPIC}`]);
  t.same(problemsOf(log('Transfer(address,address,uint256)')), [`${at}: expected a list of up to 4 topics`]);
  const m = starter();
  handler(m, 1).filter = { topics: ['Transfer(address,address,uint256)', undefined, '!null'] };
  t.same((validateManifest(m, 'p').dataSources[0]!.mapping.handlers[1] as any).filter, { topics: ['Transfer(address,address,uint256)', null, '!null'] });
});

t.test('templates: like data sources, with a name and no startBlock', async (t) => {
  const template = () => ({
    name: 'Pool',
    kind: 'ethereum/Runtime',
    options: { abi: 'pool' },
    assets: { pool: { file: './abis/pool.json' } },
    mapping: { file: './dist/index.js', handlers: [{ kind: 'ethereum/LogHandler', handler: 'handleSwap', filter: { topics: ['Swap(address,uint256)'] } }] },
  });
  const m = validateManifest({ ...starter(), templates: [template()] }, 'p');
  t.same(m.templates, [template()]);
  t.same(
    problemsOf((m) => (m.templates = {})),
    ['templates: expected a list'],
  );
  t.same(
    problemsOf((m) => (m.templates = [{ ...template(), name: undefined }])),
    ['templates[0].name: required'],
  );
  t.same(
    problemsOf((m) => (m.templates = [{ ...template(), startBlock: 5, endBlock: 9 }])),
    [
      'templates[0].startBlock: not allowed in a template: a template starts at the block where createDynamicDatasource is called',
      'templates[0].endBlock: not allowed in a template: a template starts at the block where createDynamicDatasource is called',
    ],
  );
  t.same(
    problemsOf((m) => (m.templates = [template(), template()])),
    ['templates[1].name: "Pool" is already the name of templates[0]'],
  );
  t.same(
    problemsOf((m) => (m.templates = [{ ...template(), kind: 'ethereum/Custom' }])),
    [
      'templates[0].kind: "ethereum/Custom" is not a data source kind idx runs: expected ethereum/Runtime or substrate/Runtime, or a custom Substrate kind with a processor (e.g. substrate/FrontierEvm)',
    ],
  );
  t.same(
    problemsOf((m) => (m.templates = [{ ...template(), options: { abi: 'nope' } }])),
    ['templates[0].options.abi: "nope" is not an entry of assets (have: pool)'],
  );
});

t.test('problems carry line and column when a locator is given', async (t) => {
  const m = starter();
  m.dataSources[0].startBlock = 'x';
  const err = t.throws(() =>
    validateManifest(m, 'project.yaml', { locate: (path) => (path.join('.') === 'dataSources.0.startBlock' ? { line: 12, column: 17 } : undefined) }),
  ) as ValidationError;
  t.same(err.problems, [{ path: 'dataSources[0].startBlock', message: 'expected a non-negative integer', line: 12, column: 17 }]);
  t.match(err.message, 'dataSources[0].startBlock:12:17: expected a non-negative integer');
});

t.test('--network-endpoint needs a network object naming its chain', async (t) => {
  t.doesNotThrow(() => requireNetworkForEndpointOverride(starter()));
  t.doesNotThrow(() => requireNetworkForEndpointOverride({ network: { chainId: '1' } }), 'endpoint may be absent: the flag gives it');
  const paths = (raw: unknown) => {
    const err = t.throws(() => requireNetworkForEndpointOverride(raw, 'project.yaml')) as ValidationError;
    t.equal(err.code, 'VALIDATION_FAILED');
    t.match(err.message, /^project\.yaml is invalid:/);
    return err.problems.map((p) => p.path);
  };
  t.same(paths({ specVersion: '1.0.0' }), ['network', 'network.network']);
  t.same(paths({ network: 'mainnet' }), ['network', 'network.network']);
  t.same(paths({ network: { endpoint: 'https://a.example' } }), ['network', 'network.network']);
  t.same(paths({ network: { chainId: 'mainnet' } }), ['network', 'network.network']);
  t.same(paths(undefined), ['network', 'network.network']);
  const err = t.throws(() => requireNetworkForEndpointOverride({})) as ValidationError;
  t.match(err.problems[0]!.message, /required when --network-endpoint is given/);
  t.match(err.problems[1]!.message, /network\.chainId/);
});

t.test('formatFieldPath', async (t) => {
  t.equal(formatFieldPath(['dataSources', 0, 'mapping', 'handlers', 1, 'kind']), 'dataSources[0].mapping.handlers[1].kind');
  t.equal(formatFieldPath(['network', 'endpoint', 'https://a.example', 'headers']), 'network.endpoint["https://a.example"].headers');
  t.equal(formatFieldPath([]), 'manifest');
});

t.test('endpoints as SubQuery starters sometimes write them wrongly are refused, each naming the field', async (t) => {
  const problems = problemsOf(
    (m) => (m.network.endpoint = ['https://eth.llamarpc.com\t', 'https://a.example,https://b.example', 'https://c.example https://d.example']),
  );
  t.same(problems, [
    'network.endpoint[0]: expected an http(s):// or ws(s):// URL (it has spaces, tabs or line breaks around it)',
    'network.endpoint[1]: expected an http(s):// or ws(s):// URL: this is several URLs in one string; write them as a list, e.g. ["https://a", "https://b"]',
    'network.endpoint[2]: expected an http(s):// or ws(s):// URL',
  ]);
});

t.test('onNodeOnlyProblem: what only the node reads is told, not fatal, and left out of the result', async (t) => {
  const m = starter();
  m.network.endpoint = 'https://a.example,https://b.example';
  m.dataSources[0].options.address = 'vitalik.eth';
  m.dataSources[0].startBlock = 'latest';
  handler(m, 1).filter = { topics: ['Transfer(address'] };
  m.runner.node.options = { historical: 'yes' };
  const told: string[] = [];
  const out = validateManifest(m, 'project.yaml', { onNodeOnlyProblem: (p) => told.push(`${p.path}: ${p.message}`) });
  t.same(
    told.map((p) => p.replace(/:.*/, '')),
    [
      'runner.node.options.historical',
      'network.endpoint',
      'dataSources[0].startBlock',
      'dataSources[0].options.address',
      'dataSources[0].mapping.handlers[1].filter.topics[0]',
    ],
  );
  t.equal(out.network, undefined, 'an invalid network is left out');
  t.equal(out.runner, undefined);
  t.same(out.dataSources[0]!.options, { abi: 'erc20' }, 'so is an invalid address');
  t.equal(out.dataSources[0]!.startBlock, 1);
  t.same(out.dataSources[0]!.mapping.handlers[1], { kind: 'ethereum/LogHandler', handler: 'handleLog' });

  // without it, the same manifest is refused with every one of those problems
  t.throws(() => validateManifest(m, 'project.yaml'), { code: 'VALIDATION_FAILED', problems: told.map((p) => ({ path: p.replace(/:.*/, '') })) });

  // what codegen and build read still fails
  m.dataSources[0].options.abi = 'nope';
  handler(m, 0).kind = 'ethereum/CallHandler';
  const err = t.throws(() => validateManifest(m, 'project.yaml', { onNodeOnlyProblem: () => {} })) as ValidationError;
  t.same(
    err.problems.map((p) => p.path),
    ['dataSources[0].options.abi', 'dataSources[0].mapping.handlers[0].kind'],
  );
});

t.test('Substrate manifests: substrate/Runtime data sources, their handler kinds and filters, a genesis hash as chainId', async (t) => {
  const manifest = {
    specVersion: '1.0.0',
    schema: { file: './schema.graphql' },
    network: { chainId: `0x${'AB'.repeat(32)}`, endpoint: 'wss://rpc.example.org', chaintypes: { file: './types.json' } },
    dataSources: [
      {
        kind: 'substrate/Runtime',
        startBlock: 1,
        mapping: {
          file: './dist/index.js',
          handlers: [
            { kind: 'substrate/BlockHandler', handler: 'handleBlock', filter: { modulo: 10 } },
            { kind: 'substrate/EventHandler', handler: 'handleEvent', filter: { module: 'balances', method: 'Transfer' } },
            { kind: 'substrate/CallHandler', handler: 'handleCall', filter: { module: 'utility', method: 'batchAll', success: true, isSigned: true } },
          ],
        },
      },
    ],
  };
  const m = validateManifest(manifest, 'project.yaml');
  t.equal(m.network?.chainId, `0x${'ab'.repeat(32)}`, 'the genesis hash, lowercased');
  t.same(m.network?.chaintypes, { file: './types.json' });
  t.equal(m.dataSources[0]!.kind, 'substrate/Runtime');
  t.same(m.dataSources[0]!.mapping.handlers[2], {
    kind: 'substrate/CallHandler',
    handler: 'handleCall',
    filter: { module: 'utility', method: 'batchAll', success: true, isSigned: true },
  });

  const problems = (change: (m: typeof manifest) => void) => {
    const copy = structuredClone(manifest) as typeof manifest;
    change(copy);
    try {
      validateManifest(copy, 'project.yaml');
      return [];
    } catch (err) {
      return (err as { problems: { path: string; message: string }[] }).problems.map((p) => `${p.path}: ${p.message}`);
    }
  };
  t.same(
    problems((m) => (m.network.chainId = '1')),
    ["network.chainId: expected the chain's genesis hash (0x and 64 hex digits)"],
  );
  t.same(
    problems((m) => (m.dataSources[0]!.mapping.handlers[0]!.kind = 'ethereum/LogHandler')),
    ['dataSources[0].mapping.handlers[0].kind: expected one of substrate/BlockHandler, substrate/EventHandler, substrate/CallHandler'],
  );
  t.same(
    problems((m) => ((m.dataSources[0]!.mapping.handlers[2]!.filter as Record<string, unknown>).success = 'yes')),
    ['dataSources[0].mapping.handlers[2].filter.success: expected true or false'],
  );
  t.same(
    problems((m) => ((m.dataSources[0]!.mapping.handlers[1]!.filter as Record<string, unknown>).specVersion = [1, 'x'])),
    ['dataSources[0].mapping.handlers[1].filter.specVersion: expected [from, to]: two spec versions (whole numbers), either null for an open end'],
  );
  const versioned = structuredClone(manifest);
  for (const h of versioned.dataSources[0]!.mapping.handlers) (h.filter as Record<string, unknown>).specVersion = [null, 9100];
  t.same(
    validateManifest(versioned, 'project.yaml').dataSources[0]!.mapping.handlers.map((h) => (h.filter as { specVersion?: unknown }).specVersion),
    [
      [null, 9100],
      [null, 9100],
      [null, 9100],
    ],
    'specVersion on block, event and call filters, as SubQuery takes it',
  );
  t.same(
    problems((m) => ((m.dataSources[0]!.mapping.handlers[1]!.filter as Record<string, unknown>).topics = [])),
    ['dataSources[0].mapping.handlers[1].filter.topics: unknown filter key for substrate/EventHandler; expected module or method or specVersion'],
  );
});

t.test('custom Substrate data sources: a processor file and options, assets, handler kinds and filters left to the processor', async (t) => {
  const frontier = () => ({
    kind: 'substrate/FrontierEvm',
    startBlock: 7,
    processor: {
      file: './node_modules/@subql/frontier-evm-processor/dist/bundle.js',
      options: { abi: 'erc20', address: '0x0000000000000000000100000000000000000000' },
    },
    assets: new Map([['erc20', { file: './erc20.abi.json' }]]),
    mapping: {
      file: './dist/index.js',
      handlers: [
        { kind: 'substrate/FrontierEvmEvent', handler: 'handleLog', filter: { topics: ['Transfer(address indexed from,address indexed to,uint256 value)'] } },
        { kind: 'substrate/FrontierEvmCall', handler: 'handleCall' },
      ],
    },
  });
  const manifest = (ds: Record<string, unknown>) => ({
    specVersion: '1.0.0',
    schema: { file: './schema.graphql' },
    network: { chainId: `0x${'ab'.repeat(32)}`, endpoint: 'wss://rpc.example.org' },
    dataSources: [ds],
  });
  const m = validateManifest(manifest(frontier()), 'project.ts');
  t.same(m.dataSources[0], {
    kind: 'substrate/FrontierEvm',
    startBlock: 7,
    assets: { erc20: { file: './erc20.abi.json' } },
    processor: {
      file: './node_modules/@subql/frontier-evm-processor/dist/bundle.js',
      options: { abi: 'erc20', address: '0x0000000000000000000100000000000000000000' },
    },
    mapping: {
      file: './dist/index.js',
      handlers: [
        {
          kind: 'custom',
          processorKind: 'substrate/FrontierEvmEvent',
          handler: 'handleLog',
          filter: { topics: ['Transfer(address indexed from,address indexed to,uint256 value)'] },
        },
        { kind: 'custom', processorKind: 'substrate/FrontierEvmCall', handler: 'handleCall' },
      ],
    },
  });
  const problems = (ds: Record<string, unknown>) => {
    try {
      validateManifest(manifest(ds), 'project.ts');
      return [];
    } catch (err) {
      return (err as ValidationError).problems.map((p) => `${p.path}: ${p.message}`);
    }
  };
  t.same(problems({ ...frontier(), processor: undefined }), [
    'dataSources[0].processor: required for a custom data source: an object with file (the processor, e.g. ./node_modules/@subql/frontier-evm-processor/dist/bundle.js) and options',
  ]);
  t.same(problems({ ...frontier(), processor: { options: {} } }), ['dataSources[0].processor.file: required']);
  t.same(problems({ ...frontier(), processor: { file: './p.js', options: 3 } }), ['dataSources[0].processor.options: expected an object']);
  t.same(problems({ ...frontier(), processor: './p.js' }), [
    'dataSources[0].processor: expected an object with file (the processor, e.g. ./node_modules/@subql/frontier-evm-processor/dist/bundle.js) and options',
  ]);
  t.same(problems({ ...frontier(), options: { abi: 'erc20' } }), ['dataSources[0].options: a custom data source takes its options under processor.options']);
  t.equal(
    problems({ ...frontier(), kind: 'substrate/' })[0],
    'dataSources[0].kind: "substrate/" is not a data source kind idx runs: expected ethereum/Runtime or substrate/Runtime, or a custom Substrate kind with a processor (e.g. substrate/FrontierEvm)',
  );
  const runtime = {
    kind: 'substrate/Runtime',
    processor: { file: './p.js' },
    mapping: { file: './dist/index.js', handlers: [{ kind: 'substrate/BlockHandler', handler: 'b' }] },
  };
  t.same(problems(runtime), ['dataSources[0].processor: only custom data sources take a processor; substrate/Runtime does not']);
  const handlers = frontier().mapping.handlers;
  t.same(problems({ ...frontier(), mapping: { file: './dist/index.js', handlers: [{ ...handlers[0], kind: undefined }] } }), [
    'dataSources[0].mapping.handlers[0].kind: required',
  ]);
  t.same(problems({ ...frontier(), mapping: { file: './dist/index.js', handlers: [{ ...handlers[0], filter: 'x' }] } }), [
    'dataSources[0].mapping.handlers[0].filter: expected an object',
  ]);
});
