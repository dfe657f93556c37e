import type { EntityTable } from '../entity-tables.ts';
import { graphNames } from './graph-names.ts';
import { graphList, graphValueType, type ValueClass } from './graph-types.ts';

/** A suffix of graph-node's filter fields: `value_gt` is `value` with `gt`; `''` is equality. */
export type GraphOp =
  | ''
  | 'not'
  | 'gt'
  | 'lt'
  | 'gte'
  | 'lte'
  | 'in'
  | 'not_in'
  | 'contains'
  | 'contains_nocase'
  | 'not_contains'
  | 'not_contains_nocase'
  | 'starts_with'
  | 'starts_with_nocase'
  | 'not_starts_with'
  | 'not_starts_with_nocase'
  | 'ends_with'
  | 'ends_with_nocase'
  | 'not_ends_with'
  | 'not_ends_with_nocase';

const COMPARE: readonly GraphOp[] = ['', 'not', 'gt', 'lt', 'gte', 'lte', 'in', 'not_in'];
const EQUALITY: readonly GraphOp[] = ['', 'not', 'in', 'not_in'];
const TEXT: readonly GraphOp[] = [
  ...COMPARE,
  'contains',
  'contains_nocase',
  'not_contains',
  'not_contains_nocase',
  'starts_with',
  'starts_with_nocase',
  'not_starts_with',
  'not_starts_with_nocase',
  'ends_with',
  'ends_with_nocase',
  'not_ends_with',
  'not_ends_with_nocase',
];

/**
 * graph-node's operators per value type (its `field_filter_ops`). A `Date` (served as String) is
 * compared as a time, so it gets the comparisons without the text operators.
 */
export const GRAPH_OPS: Record<ValueClass, readonly GraphOp[]> = {
  ID: COMPARE,
  String: TEXT,
  Bytes: [...COMPARE, 'contains', 'not_contains'],
  Ordered: COMPARE,
  Boolean: EQUALITY,
  Enum: EQUALITY,
  JSON: ['', 'not'],
};

/** Lists (not JSON): equality and containment of the whole list. */
export const LIST_OPS: readonly GraphOp[] = ['', 'not', 'contains', 'not_contains'];

/** A filtered value: one, or a whole list (of bytes and of dates, items are written as the store holds them). */
export type ValueShape = 'scalar' | 'bytes' | 'list' | 'bytes-list' | 'date-list';

/** What one field of a `<T>_filter` input filters, in the SubQuery dialect's terms (compile-filter.ts). */
export type WhereTarget =
  /** an operator on a column: `field` is the SubQuery filter field (`value`, `fromId`) */
  | { kind: 'value'; field: string; op: GraphOp; shape: ValueShape }
  /** `from_`, `sentTransfers_`: a filter on the related rows; `many` for a `@derivedFrom` list */
  | { kind: 'child'; field: string; entity: string; many: boolean };

export interface WhereField {
  /** the input field: `value_gt`, `from_` */
  name: string;
  /** its GraphQL input type */
  type: string;
  target: WhereTarget;
}

/** The fields of an entity's `<T>_filter`, in graph-node's order, and what each means. */
export interface WherePlan {
  /** `Transfer_filter` */
  type: string;
  fields: ReadonlyMap<string, WhereField>;
}

/** Builds every entity's where plan. */
export function wherePlans(tables: ReadonlyMap<string, EntityTable>): Map<string, WherePlan> {
  return new Map([...tables.values()].map((t) => [t.entity.name, wherePlan(t, tables)]));
}

function wherePlan(t: EntityTable, tables: ReadonlyMap<string, EntityTable>): WherePlan {
  const fields = new Map<string, WhereField>();
  // a field name that ends like an operator (`value_not`) must not replace that operator's field
  const add = (f: WhereField) => {
    if (!fields.has(f.name)) fields.set(f.name, f);
  };
  const ops = (name: string, field: string, type: string, list: boolean, ops: readonly GraphOp[], shape: ValueShape) => {
    for (const op of ops) {
      const many = op === 'in' || op === 'not_in' || list;
      add({ name: op === '' ? name : `${name}_${op}`, type: many ? `[${type}!]` : type, target: { kind: 'value', field, op, shape } });
    }
  };
  for (const c of t.columns) {
    const forward = c.references === undefined ? undefined : t.forward.find((r) => r.column === c.column);
    if (forward !== undefined) {
      // a relation filters by the other entity's id, with String's operators, or by its fields (`from_`)
      ops(forward.name, c.name, 'String', false, GRAPH_OPS.String, 'scalar');
      add({
        name: `${forward.name}_`,
        type: graphNames(forward.entity).filter,
        target: { kind: 'child', field: forward.name, entity: forward.entity, many: false },
      });
      continue;
    }
    const v = graphValueType(c);
    if (graphList(c)) ops(c.name, c.name, v.name, true, LIST_OPS, v.name === 'Bytes' ? 'bytes-list' : v.date ? 'date-list' : 'list');
    else ops(c.name, c.name, v.name, false, GRAPH_OPS[v.class], v.class === 'Bytes' ? 'bytes' : 'scalar');
  }
  for (const r of t.backward) {
    if (!tables.has(r.entity)) continue;
    add({ name: `${r.name}_`, type: graphNames(r.entity).filter, target: { kind: 'child', field: r.name, entity: r.entity, many: r.many } });
  }
  return { type: graphNames(t.entity.name).filter, fields };
}
