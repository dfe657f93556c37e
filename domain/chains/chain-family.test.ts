import t from 'tap';
import { familyOfKinds } from './chain-family.ts';

t.test('the family comes from the data sources kinds', async (t) => {
  t.equal(familyOfKinds(['ethereum/Runtime', 'ethereum/Runtime'], 'project.yaml'), 'ethereum');
  t.equal(familyOfKinds([], 'project.yaml'), 'ethereum', 'no data sources yet: the EVM reader says what is missing');
  t.equal(familyOfKinds(['ethereum/Unknown'], 'project.yaml'), 'ethereum', 'an unknown kind is left to the EVM reader, which names the field');
  t.equal(familyOfKinds(['substrate/Runtime'], 'project.yaml'), 'substrate', 'idx-node runs the base family');
  t.throws(() => familyOfKinds(['substrate/Runtime'], 'project.yaml', { program: 'idx-node-ethereum', family: 'ethereum' }), {
    code: 'CHAIN_FAMILY_UNSUPPORTED',
    message: 'project.yaml: idx-node-ethereum runs ethereum/Runtime projects; run substrate/Runtime projects with idx-node',
  });
  t.throws(() => familyOfKinds(['ethereum/Runtime', 'substrate/Runtime'], 'project.yaml'), {
    code: 'CHAIN_FAMILY_MIXED',
    message: 'project.yaml: data sources of several chain families (ethereum, substrate); one project indexes one chain',
  });
  t.equal(familyOfKinds(['substrate/FrontierEvm'], 'project.yaml'), 'substrate', "a custom data source is its runtime's family");
});
