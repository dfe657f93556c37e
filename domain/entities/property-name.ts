import type { FieldModel } from './entity-model.ts';

/**
 * The key under which an entity's data holds a field: its name, or `<name>Id` for a relation
 * (`owner: Account` is held as `ownerId`), as SubQuery's codegen classes and store do.
 */
export function propertyName(field: FieldModel): string {
  return field.type.kind === 'entity' ? `${field.name}Id` : field.name;
}
