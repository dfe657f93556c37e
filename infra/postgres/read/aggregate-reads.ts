/**
 * The statements of a connection's `aggregates` and `groupedAggregates`, over the connection's rows
 * (`rows`: FROM and WHERE, as `t`). Nested under parents, `parent` is the foreign key, answered as `__parent`.
 */

/** `count(*)` as `__count`, then each aggregate expression as `a0`, `a1`… */
export function aggregateItems(expressions: readonly string[]): string {
  return ['count(*) as __count', ...expressions.map((e, i) => `${e} as a${i}`)].join(', ');
}

/** The aggregates of all the rows, or of each parent's. */
export function aggregateSelect(items: string, rows: string, parent?: string): string {
  return parent === undefined ? `select ${items} from ${rows}` : `select ${parent} as __parent, ${items} from ${rows} group by ${parent}`;
}

export interface GroupedParts {
  items: string;
  rows: string;
  parent?: string;
  /** the groupBy expressions, answered as text `g0`, `g1`… */
  keys: readonly string[];
  /** the having condition, 'true' for none */
  having: string;
  /** groups to read (per parent) */
  limit: number;
}

/** One row per group, in group order: at most `limit` groups (of each parent, numbered `__n`). */
export function groupedAggregateSelect(p: GroupedParts): string {
  const { parent, keys } = p;
  const groups = [...(parent !== undefined ? [parent] : []), ...keys];
  const named = keys.map((e, i) => `${e}::text as g${i}`).join(', ');
  const numbered = parent !== undefined ? `${parent} as __parent, row_number() over (partition by ${parent} order by ${keys.join(', ')}) as __n, ` : '';
  const grouped =
    `select ${numbered}${named}, ${p.items} from ${p.rows} ` +
    `group by ${groups.join(', ')}${p.having === 'true' ? '' : ` having ${p.having}`} order by ${groups.join(', ')}`;
  return parent !== undefined ? `select * from (${grouped}) g where g.__n <= ${p.limit} order by g.__parent, g.__n` : `${grouped} limit ${p.limit}`;
}
