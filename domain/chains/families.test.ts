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

t.test("a family's manifest rules: its handler kinds carry its prefix (validate-manifest finds a filter's rules by it)", async (t) => {
  for (const f of FAMILIES) {
    const kinds = Object.keys(f.manifest.filterKeys);
    t.ok(kinds.length > 0, `${f.name} has handler kinds`);
    t.ok(
      kinds.every((k) => familyOfKind(k) === f.name),
      `${f.name}'s handler kinds are its own`,
    );
    if (f.manifest.customKinds !== undefined) t.equal(familyOfKind(f.manifest.customKinds.example), f.name, `${f.name}'s custom kind example is its own`);
  }
});
