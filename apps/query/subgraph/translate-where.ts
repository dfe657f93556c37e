import { badInput, type FilterInput } from '../compile-filter.ts';
import { isoText } from './graph-types.ts';
import type { GraphOp, WherePlan, WhereTarget } from './where-plan.ts';

/** The SubQuery dialect's operator for each Graph operator on a single value (filter-operators.ts). */
const SCALAR_OPERATOR: Record<GraphOp, string> = {
  '': 'equalTo',
  not: 'notEqualTo',
  gt: 'greaterThan',
  lt: 'lessThan',
  gte: 'greaterThanOrEqualTo',
  lte: 'lessThanOrEqualTo',
  in: 'in',
  not_in: 'notIn',
  contains: 'includes',
  contains_nocase: 'includesInsensitive',
  not_contains: 'notIncludes',
  not_contains_nocase: 'notIncludesInsensitive',
  starts_with: 'startsWith',
  starts_with_nocase: 'startsWithInsensitive',
  not_starts_with: 'notStartsWith',
  not_starts_with_nocase: 'notStartsWithInsensitive',
  ends_with: 'endsWith',
  ends_with_nocase: 'endsWithInsensitive',
  not_ends_with: 'notEndsWith',
  not_ends_with_nocase: 'notEndsWithInsensitive',
};

/** Lists compare whole: `contains` is array containment (`@>`); `not_contains` is its negation. */
const LIST_OPERATOR: Partial<Record<GraphOp, string>> = { '': 'equalTo', not: 'notEqualTo', contains: 'contains' };

/**
 * A Graph `where` (`{ value_gt: "5", from_: { balance_gt: "0" }, or: [...] }`) as the SubQuery
 * dialect's filter (`{ value: { greaterThan: "5" }, from: { balance: { greaterThan: "0" } } }`),
 * which compile-filter.ts turns into SQL. `plans` has every entity's filter fields; `entity` names
 * the one filtered. Values are those GraphQL coerced (scalars already checked).
 */
export function translateWhere(plans: ReadonlyMap<string, WherePlan>, entity: string, where: Record<string, unknown>): FilterInput {
  const plan = plans.get(entity);
  if (plan === undefined) throw badInput(`no entity ${entity} to filter`);
  const keys = Object.keys(where).filter((k) => where[k] !== undefined);
  // graph-node refuses this mix rather than guess whether the column filters go inside the `or`
  const besideOr = keys.includes('or') ? keys.filter((k) => k !== 'or' && k !== 'and') : [];
  if (besideOr.length > 0) {
    const list = besideOr.map((k) => `'${k}'`).join(', ');
    throw badInput(
      `${plan.type}: cannot mix column filters with 'or' operator at the same level. Found column filter(s) ${list} alongside 'or' operator; put them in each item of the 'or' list instead`,
    );
  }
  const parts: FilterInput[] = [];
  for (const key of keys) {
    const value = where[key];
    if (key === 'and' || key === 'or') {
      if (value === null) throw badInput(`${plan.type}.${key}: null is not a list of filters`);
      const items = (value as unknown[]).map((item, i) => {
        if (item === null || typeof item !== 'object') throw badInput(`${plan.type}.${key}[${i}]: each item must be a filter object`);
        return translateWhere(plans, entity, item as Record<string, unknown>);
      });
      parts.push({ [key]: items });
      continue;
    }
    const field = plan.fields.get(key);
    if (field === undefined) throw badInput(`${plan.type}: unknown field ${key}`);
    parts.push(translateField(plans, plan, key, field.target, value));
  }
  return combine(parts);
}

function translateField(plans: ReadonlyMap<string, WherePlan>, plan: WherePlan, key: string, target: WhereTarget, value: unknown): FilterInput {
  if (target.kind === 'child') {
    if (value === null || typeof value !== 'object')
      throw badInput(`${plan.type}.${key}: null is not a filter; give an object of the related entity's filter fields`);
    const inner = translateWhere(plans, target.entity, value as Record<string, unknown>);
    // a `@derivedFrom` list matches when any related row does, as graph-node's child filters
    return { [target.field]: target.many ? { some: inner } : inner };
  }
  const { field, op, shape } = target;
  if (value === null) {
    // graph-node's `f: null` / `f_not: null` ask whether the value is missing
    if (op === '' || op === 'not') return { [field]: { isNull: op === '' } };
    const base = key.slice(0, key.length - op.length - 1);
    throw badInput(`${plan.type}.${key}: null is not a value to compare with; ask for missing values with ${base}: null or ${base}_not: null`);
  }
  if (shape === 'list' || shape === 'bytes-list' || shape === 'date-list') {
    // a list's items as its jsonb array holds them: bytes in lowercase hex, dates as their ISO text in UTC
    const item = (x: unknown) => {
      if (typeof x !== 'string') return x;
      if (shape === 'bytes-list') return x.toLowerCase();
      if (Number.isNaN(Date.parse(x))) throw badInput(`${plan.type}.${key}: ${JSON.stringify(x.slice(0, 40))} is not an ISO 8601 date and time`);
      return isoText(x);
    };
    const items = shape === 'list' ? value : (value as unknown[]).map(item);
    if (op === 'not_contains') return { not: { [field]: { contains: items } } };
    return { [field]: { [LIST_OPERATOR[op]!]: items } };
  }
  // Bytes show as `0x` hex: a byte string contains another where its hex does
  if (shape === 'bytes' && (op === 'contains' || op === 'not_contains')) return { [field]: { [SCALAR_OPERATOR[op]]: String(value).replace(/^0x/, '') } };
  return { [field]: { [SCALAR_OPERATOR[op]]: value } };
}

/** One filter of all the parts: merged when their fields differ, else an `and` of them (same rows either way). */
function combine(parts: FilterInput[]): FilterInput {
  if (parts.length === 1) return parts[0]!;
  const merged: FilterInput = {};
  for (const part of parts) {
    for (const [k, v] of Object.entries(part)) {
      if (k in merged) return { and: parts };
      merged[k] = v;
    }
  }
  return merged;
}
