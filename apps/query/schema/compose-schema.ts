import type { FieldMap, SchemaBuild, SchemaExtension } from './schema-extension.ts';

/** Builds the composer's types and fields from `plugins`, step by step (schema-extension.ts). */
export function composeSchema(build: SchemaBuild, plugins: readonly SchemaExtension[]): void {
  const { composer: sc, tables } = build;
  const merged = (part: (p: SchemaExtension) => FieldMap | undefined): FieldMap => Object.assign({}, ...plugins.map(part));
  for (const p of plugins) p.prepare?.(build);
  for (const t of tables.values()) {
    sc.createObjectTC({ name: t.names.type, description: t.entity.description, fields: merged((p) => p.entityFields?.(build, t)) });
    for (const p of plugins) p.entityTypes?.(build, t);
    sc.createObjectTC({
      name: t.names.connectionType,
      description: `A page of ${t.names.type} rows.`,
      fields: merged((p) => p.connectionFields?.(build, t)),
    });
  }
  for (const t of tables.values()) {
    for (const p of plugins) {
      const fields = p.queryFields?.(build, t);
      if (fields !== undefined) sc.Query.addFields(fields);
    }
  }
  for (const p of plugins) p.finish?.(build);
}
