import type { EntityModel, FieldModel, FieldType, SchemaModel } from '../../domain/entities/entity-model.ts';
import { LAYOUT } from '../../domain/entities/layout.ts';
import { columnName, enumTypeName, tableName } from '../../domain/entities/names.ts';

/** Entity models for storage tests, built by hand so they do not depend on the schema parser. */

export type FieldSpec = Partial<Omit<FieldModel, 'name' | 'type'>> & { type: FieldType | string };

function fieldType(t: FieldType | string, enums: readonly string[]): FieldType {
  if (typeof t !== 'string') return t;
  if (enums.includes(t)) return { kind: 'enum', name: t };
  return { kind: 'scalar', scalar: t as never };
}

export function entity(name: string, fields: Record<string, FieldSpec | string>, enums: readonly string[] = []): EntityModel {
  const out: FieldModel[] = [{ name: 'id', type: { kind: 'scalar', scalar: 'ID' }, nullable: false, list: false, itemNullable: false, column: 'id' }];
  for (const [fname, spec0] of Object.entries(fields)) {
    const spec: FieldSpec = typeof spec0 === 'string' ? { type: spec0 } : spec0;
    const type = fieldType(spec.type, enums);
    const f: FieldModel = {
      name: fname,
      type,
      nullable: spec.nullable ?? true,
      list: spec.list ?? false,
      itemNullable: spec.itemNullable ?? true,
      ...(spec.derivedFrom === undefined ? { column: columnName(fname, type.kind === 'entity') } : { derivedFrom: spec.derivedFrom }),
      ...(spec.index === undefined ? {} : { index: spec.index }),
    };
    out.push(f);
  }
  return { name, table: tableName(name), fields: out, indexes: [] };
}

export function schemaModel(entities: EntityModel[], enums: Record<string, string[]> = {}): SchemaModel {
  return {
    layout: LAYOUT,
    entities,
    enums: Object.entries(enums).map(([name, values]) => ({ name, pgName: enumTypeName(name), values })),
    jsonTypes: [],
  };
}

/** Every scalar, a few lists, an enum, a JSON field, a relation and a derived field. */
export function everyTypeModel(): SchemaModel {
  const enums = ['TransferKind'];
  return schemaModel(
    [
      entity('Account', { name: 'String', transfers: { type: { kind: 'entity', entity: 'EveryType' }, list: true, derivedFrom: 'owner' } }),
      entity(
        'EveryType',
        {
          str: { type: 'String', nullable: false },
          int: 'Int',
          big: { type: 'BigInt', index: { unique: false } },
          float: 'Float',
          flag: 'Boolean',
          date: 'Date',
          bytes: { type: 'Bytes', index: { unique: true } },
          decimal: 'BigDecimal',
          json: 'JSON',
          kind: 'TransferKind',
          kinds: { type: 'TransferKind', list: true },
          strs: { type: 'String', list: true },
          ints: { type: 'Int', list: true, itemNullable: false },
          bigs: { type: 'BigInt', list: true },
          dates: { type: 'Date', list: true },
          flags: { type: 'Boolean', list: true },
          meta: { type: { kind: 'json', name: 'Meta' } },
          owner: { type: { kind: 'entity', entity: 'Account' } },
        },
        enums,
      ),
    ],
    { TransferKind: ['IN', 'OUT', 'SELF'] },
  );
}

/** The simple shape the property test and the benchmark write. */
export function counterModel(): SchemaModel {
  return schemaModel([entity('Counter', { value: { type: 'Int', nullable: false }, label: 'String', total: { type: 'BigInt', index: { unique: false } } })]);
}
