import t from 'tap';
import { FAMILIES, familyOfKind, isRuntimeKind, runtimeKindOf } from './families.ts';

t.test('a kind names its family by its prefix', async (t) => {
  t.equal(familyOfKind('ethereum/Runtime'), 'ethereum');
  t.equal(familyOfKind('substrate/Runtime'), 'substrate');
  t.equal(familyOfKind('substrate/FrontierEvm'), 'substrate', "a custom data source belongs to its runtime's family");
  t.equal(familyOfKind('cosmos/Runtime'), 'ethereum', 'a kind of no family is left to the EVM reader, which names the field');
});

t.test('runtime kinds are the families base kinds; others are custom', async (t) => {
  t.same(
    FAMILIES.map((f) => runtimeKindOf(f.name)),
    ['ethereum/Runtime', 'substrate/Runtime'],
  );
  t.ok(isRuntimeKind('substrate/Runtime'));
  t.notOk(isRuntimeKind('substrate/FrontierEvm'));
  t.ok(
    FAMILIES.every((f) => f.runtimeKind.startsWith(f.kindPrefix)),
    "a family's runtime kind carries its prefix",
  );
});
