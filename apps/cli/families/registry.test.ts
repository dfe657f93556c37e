import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { FAMILIES } from '../../../domain/chains/families.ts';
import { findPackage } from '../../../infra/package/find-package.ts';
import { cliFamilies, cliFamily, DEFAULT_CLI_FAMILY, STORE_TYPES_FAMILY } from './registry.ts';

t.test('every chain family has its entry, and the defaults name one', async (t) => {
  t.same(Object.keys(cliFamilies).sort(), FAMILIES.map((f) => f.name).sort());
  t.ok(cliFamily(DEFAULT_CLI_FAMILY));
  t.ok((await cliFamilies[STORE_TYPES_FAMILY].codegen?.())?.storeTypes, 'the models import their store types from this family');
  t.equal(cliFamily('toString'), undefined, 'a name of no family is none, an inherited key too');
});

t.test("every family's starter is a project in examples/ that calls itself by the name init replaces", async (t) => {
  for (const [name, family] of Object.entries(cliFamilies)) {
    const folder = join(findPackage().root, 'examples', family.starter.folder);
    t.ok(existsSync(join(folder, 'schema.graphql')), `${name}: ${folder}`);
    t.equal(JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).name, family.starter.name, name);
  }
});
