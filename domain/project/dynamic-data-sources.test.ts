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
