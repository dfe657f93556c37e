import t from 'tap';
import { instantiateTemplate } from './dynamic-data-sources.ts';
import type { Template } from './project-model.ts';

const templates: Template[] = [
  {
    name: 'Pool',
    kind: 'ethereum/Runtime',
    options: { abi: 'pool' },
    assets: { pool: { file: 'abis/pool.json' } },
    mapping: { file: 'dist/index.js', handlers: [{ kind: 'ethereum/LogHandler', handler: 'handleSwap' }] },
  },
];

t.test('a template becomes a data source starting at the creating block, args merged into options', async (t) => {
  const ds = instantiateTemplate(templates, { templateName: 'Pool', startBlock: 42, args: { address: '0xABCDEF0000000000000000000000000000000001' } });
  t.same(ds, {
    kind: 'ethereum/Runtime',
    startBlock: 42,
    options: { abi: 'pool', address: '0xabcdef0000000000000000000000000000000001' },
    assets: { pool: { file: 'abis/pool.json' } },
    mapping: { file: 'dist/index.js', handlers: [{ kind: 'ethereum/LogHandler', handler: 'handleSwap' }] },
  });
  t.same(templates[0]!.options, { abi: 'pool' }, 'the template itself is untouched');
});

t.test('an unknown template names the ones there are', async (t) => {
  t.throws(() => instantiateTemplate(templates, { templateName: 'Pair', startBlock: 1 }), {
    code: 'TEMPLATE_NOT_FOUND',
    message: 'createDynamicDatasource("Pair"): no such template in the manifest; templates: Pool',
  });
});

t.test("a custom data source's template: the arguments go to its processor's options, as SubQuery's node merges them", async (t) => {
  const template: Template = {
    name: 'Token',
    kind: 'substrate/FrontierEvm',
    assets: { erc20: { file: './erc20.abi.json' } },
    processor: { file: './node_modules/@subql/frontier-evm-processor/dist/bundle.js', options: { abi: 'erc20' } },
    mapping: { file: './dist/index.js', handlers: [{ kind: 'custom', processorKind: 'substrate/FrontierEvmEvent', handler: 'h' }] },
  };
  const ds = instantiateTemplate([template], { templateName: 'Token', startBlock: 9, args: { address: '0xAB' } });
  t.same(ds.processor, { file: './node_modules/@subql/frontier-evm-processor/dist/bundle.js', options: { abi: 'erc20', address: '0xAB' } });
  t.equal(ds.startBlock, 9);
  t.equal(ds.options, undefined, 'the runtime options are left alone');
  t.same(template.processor!.options, { abi: 'erc20' }, 'the template is not changed');
});
