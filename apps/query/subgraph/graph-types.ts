import type { QueryColumn } from '../entity-tables.ts';

/** Which of graph-node's filter operator sets a value type gets. */
export type ValueClass = 'ID' | 'String' | 'Bytes' | 'Ordered' | 'Boolean' | 'Enum' | 'JSON';

/** A column's value as the Graph dialect shows it. */
export interface GraphValueType {
  /** the GraphQL scalar or enum of one value */
  name: string;
  class: ValueClass;
  /** a `Date` field: graph-node has no such type, so it is an ISO 8601 `String` */
  date: boolean;
}

const SCALAR_TYPE: Record<string, Omit<GraphValueType, 'date'>> = {
  ID: { name: 'ID', class: 'ID' },
  String: { name: 'String', class: 'String' },
  Bytes: { name: 'Bytes', class: 'Bytes' },
  Int: { name: 'Int', class: 'Ordered' },
  // graph-node has no Float; GraphQL's own keeps such fields numbers
  Float: { name: 'Float', class: 'Ordered' },
  BigInt: { name: 'BigInt', class: 'Ordered' },
  BigDecimal: { name: 'BigDecimal', class: 'Ordered' },
  Boolean: { name: 'Boolean', class: 'Boolean' },
  JSON: { name: 'JSON', class: 'JSON' },
};

/** The Graph type of a stored column that is not a relation (of one item, for a list), by its field's type. */
export function graphValueType(c: QueryColumn): GraphValueType {
  if (c.field === undefined) return { name: 'ID', class: 'ID', date: false };
  const t = c.field.type;
  if (t.kind === 'enum') return { name: t.name, class: 'Enum', date: false };
  if (t.kind === 'json') return { name: 'JSON', class: 'JSON', date: false };
  if (t.kind === 'scalar') {
    if (t.scalar === 'Date') return { name: 'String', class: 'Ordered', date: true };
    return { ...SCALAR_TYPE[t.scalar]!, date: false };
  }
  // relation columns hold the other entity's id
  return { name: 'String', class: 'String', date: false };
}

/** A list field as graph-node types it (`[Int!]`), whether stored as jsonb or an enum array; a JSON list is one JSON value. */
export function graphList(c: QueryColumn): boolean {
  return c.field?.list === true && graphValueType(c).class !== 'JSON';
}

/** The GraphQL type of a column's field: `[Int!]`, `BigInt!`, … */
export function graphFieldType(c: QueryColumn): string {
  const { name } = graphValueType(c);
  const type = graphList(c) ? `[${name}${c.field?.itemNullable === false ? '!' : ''}]` : name;
  return c.nullable ? type : `${type}!`;
}

/** A timestamp as the Graph dialect serves `Date` fields: ISO 8601 text. */
export function isoText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return (v instanceof Date ? v : new Date(v as string)).toISOString();
}
