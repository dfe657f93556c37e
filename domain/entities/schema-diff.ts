import type { EntityModel, EnumModel, FieldModel, FieldType, FullTextModel, IndexModel, SchemaModel } from './entity-model.ts';

/** One difference between the entity model a schema was indexed with and the project's current one. */
export type SchemaChange =
  | { kind: 'add-entity'; entity: EntityModel }
  | { kind: 'drop-entity'; entity: EntityModel }
  | { kind: 'add-field'; entity: EntityModel; field: FieldModel }
  | { kind: 'drop-field'; entity: EntityModel; field: FieldModel }
  /** same name, another type, nullability or list shape (a stored field; virtual fields need no DDL) */
  | { kind: 'alter-field'; entity: EntityModel; from: FieldModel; to: FieldModel }
  | { kind: 'add-index'; entity: EntityModel; index: IndexModel }
  | { kind: 'drop-index'; entity: EntityModel; index: IndexModel }
  /** `@fullText` added, removed or changed: its index is remade */
  | { kind: 'full-text'; entity: EntityModel; from?: FullTextModel; to?: FullTextModel }
  | { kind: 'add-enum'; enum: EnumModel }
  | { kind: 'drop-enum'; enum: EnumModel }
  | { kind: 'add-enum-values'; enum: EnumModel; values: string[] }
  | { kind: 'drop-enum-values'; enum: EnumModel; values: string[] }
  /** a `@jsonField` type or a virtual (`@derivedFrom`) field: only the stored model changes */
  | { kind: 'model-only'; what: string };

const stored = (f: FieldModel) => typeof f.column === 'string' && f.derivedFrom === undefined;
const indexKey = (ix: IndexModel) => `${ix.columns.join(',')}${ix.unique ? ' unique' : ''}`;
const typeKey = (t: FieldType) => JSON.stringify(t.kind === 'scalar' ? [t.kind, t.scalar] : t.kind === 'entity' ? [t.kind, t.entity] : [t.kind, t.name]);

/** How a field reads in schema.graphql, e.g. `[BigInt!]!` or `Account` */
export function fieldTypeText(f: FieldModel): string {
  const named = f.type.kind === 'scalar' ? f.type.scalar : f.type.kind === 'entity' ? f.type.entity : f.type.name;
  const inner = f.list ? `[${named}${f.itemNullable ? '' : '!'}]` : named;
  return `${inner}${f.nullable ? '' : '!'}`;
}

const fullTextText = (ft: FullTextModel) => `(${ft.fields.join(', ')}) in ${ft.language}`;

function sameStorage(a: FieldModel, b: FieldModel): boolean {
  return typeKey(a.type) === typeKey(b.type) && a.nullable === b.nullable && a.list === b.list && a.itemNullable === b.itemNullable && a.column === b.column;
}

/** The differences, in the order a migration applies them: enums, then entities, then indexes. Empty when equal. */
export function diffSchemas(before: SchemaModel, after: SchemaModel): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const oldEnums = new Map(before.enums.map((e) => [e.name, e]));
  const newEnums = new Map(after.enums.map((e) => [e.name, e]));
  for (const e of after.enums) {
    const old = oldEnums.get(e.name);
    if (old === undefined) {
      changes.push({ kind: 'add-enum', enum: e });
      continue;
    }
    const added = e.values.filter((v) => !old.values.includes(v));
    const dropped = old.values.filter((v) => !e.values.includes(v));
    if (added.length > 0) changes.push({ kind: 'add-enum-values', enum: e, values: added });
    if (dropped.length > 0) changes.push({ kind: 'drop-enum-values', enum: e, values: dropped });
  }

  const oldEntities = new Map(before.entities.map((e) => [e.name, e]));
  const newEntities = new Map(after.entities.map((e) => [e.name, e]));
  for (const e of before.entities) if (!newEntities.has(e.name)) changes.push({ kind: 'drop-entity', entity: e });
  for (const e of after.entities) {
    const old = oldEntities.get(e.name);
    if (old === undefined) {
      changes.push({ kind: 'add-entity', entity: e });
      continue;
    }
    const oldFields = new Map(old.fields.map((f) => [f.name, f]));
    const newFields = new Map(e.fields.map((f) => [f.name, f]));
    for (const f of old.fields) {
      if (newFields.has(f.name)) continue;
      changes.push(stored(f) ? { kind: 'drop-field', entity: e, field: f } : { kind: 'model-only', what: `${e.name}: removed field ${f.name}` });
    }
    for (const f of e.fields) {
      const was = oldFields.get(f.name);
      if (was === undefined) {
        changes.push(
          stored(f) ? { kind: 'add-field', entity: e, field: f } : { kind: 'model-only', what: `${e.name}: added field ${f.name}: ${fieldTypeText(f)}` },
        );
      } else if (stored(f) !== stored(was)) {
        // a column that becomes virtual, or the other way round: one goes, the other comes
        if (stored(was)) changes.push({ kind: 'drop-field', entity: e, field: was });
        if (stored(f)) changes.push({ kind: 'add-field', entity: e, field: f });
      } else if (stored(f) && !sameStorage(was, f)) {
        changes.push({ kind: 'alter-field', entity: e, from: was, to: f });
      } else if (!stored(f) && (typeKey(was.type) !== typeKey(f.type) || was.derivedFrom !== f.derivedFrom)) {
        changes.push({ kind: 'model-only', what: `${e.name}: field ${f.name} changed` });
      }
    }
    const oldIx = new Set(old.indexes.map(indexKey));
    const newIx = new Set(e.indexes.map(indexKey));
    for (const ix of old.indexes) if (!newIx.has(indexKey(ix))) changes.push({ kind: 'drop-index', entity: e, index: ix });
    for (const ix of e.indexes) if (!oldIx.has(indexKey(ix))) changes.push({ kind: 'add-index', entity: e, index: ix });
    if (JSON.stringify(old.fullText ?? null) !== JSON.stringify(e.fullText ?? null))
      changes.push({ kind: 'full-text', entity: e, from: old.fullText, to: e.fullText });
  }

  for (const e of before.enums) if (!newEnums.has(e.name)) changes.push({ kind: 'drop-enum', enum: e });
  const oldJson = new Map(before.jsonTypes.map((j) => [j.name, JSON.stringify(j.fields)]));
  for (const j of after.jsonTypes) {
    const was = oldJson.get(j.name);
    if (was === undefined) changes.push({ kind: 'model-only', what: `added @jsonField type ${j.name}` });
    else if (was !== JSON.stringify(j.fields)) changes.push({ kind: 'model-only', what: `@jsonField type ${j.name} changed` });
  }
  for (const name of oldJson.keys())
    if (!after.jsonTypes.some((j) => j.name === name)) changes.push({ kind: 'model-only', what: `removed @jsonField type ${name}` });
  return changes;
}

/** One line for the user, e.g. `Transfer: added field memo: String`. */
export function describeChange(c: SchemaChange): string {
  switch (c.kind) {
    case 'add-entity':
      return `added entity ${c.entity.name} (table ${c.entity.table})`;
    case 'drop-entity':
      return `removed entity ${c.entity.name} (its table ${c.entity.table} and data are dropped)`;
    case 'add-field':
      return `${c.entity.name}: added field ${c.field.name}: ${fieldTypeText(c.field)}`;
    case 'drop-field':
      return `${c.entity.name}: removed field ${c.field.name} (column ${c.field.column} and its data are dropped)`;
    case 'alter-field':
      return `${c.entity.name}: field ${c.to.name} changed from ${fieldTypeText(c.from)} to ${fieldTypeText(c.to)}`;
    case 'add-index':
      return `${c.entity.name}: added ${c.index.unique ? 'unique ' : ''}index on (${c.index.columns.join(', ')})`;
    case 'drop-index':
      return `${c.entity.name}: removed ${c.index.unique ? 'unique ' : ''}index on (${c.index.columns.join(', ')})`;
    case 'full-text':
      return `${c.entity.name}: ${c.to === undefined ? 'removed @fullText' : `${c.from === undefined ? 'added' : 'changed'} @fullText to ${fullTextText(c.to)}`}`;
    case 'add-enum':
      return `added enum ${c.enum.name} (${c.enum.values.join(', ')})`;
    case 'drop-enum':
      return `removed enum ${c.enum.name}`;
    case 'add-enum-values':
      return `enum ${c.enum.name}: added ${c.values.join(', ')}`;
    case 'drop-enum-values':
      return `enum ${c.enum.name}: removed ${c.values.join(', ')}`;
    case 'model-only':
      return c.what;
  }
}
