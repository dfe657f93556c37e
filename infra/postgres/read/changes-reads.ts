import { BLOCK_RANGE } from '../schema-ddl.ts';
import { selectList, type ReadTable } from './select-list.ts';
import type { SqlParams } from './sql-params.ts';

/** The changes of an entity's versions between two heights (`<entity>Changes`). */
export interface ChangesWindow {
  /** heights `from` (inclusive) to `to` (exclusive) */
  from: number;
  to: number;
  /** paged: from after this (height, id) on, `limit` changes (and one more) */
  page?: { after?: readonly [string, string]; limit: number };
  /**
   * The filter as a condition on the version `alias`, its relations read at `height` (an SQL
   * expression); 'true' for none.
   */
  matches(alias: string, height: string): string;
}

/**
 * The versions that began in the window (`a`) fully joined with those that ended in it (`b`), on id
 * and height: a CREATE has only `a`, a DELETE only `b`, an UPDATE both. Each side is `__h`, its height.
 */
export function changesJoin(t: Pick<ReadTable, 'table'>, w: ChangesWindow, params: SqlParams): string {
  const lo = params.add(String(w.from), 'int8');
  const hi = params.add(String(w.to), 'int8');
  // The version after a change is read at the change's height, the one before at the height below.
  const heightOf = (bound: 'lower' | 'upper', alias: string) => (bound === 'lower' ? `lower(${alias}.${BLOCK_RANGE})` : `upper(${alias}.${BLOCK_RANGE}) - 1`);
  const side = (bound: 'lower' | 'upper') => {
    const other = bound === 'lower' ? 'upper' : 'lower';
    const key = `${bound}(x.${BLOCK_RANGE})`;
    const conds = [`${key} >= ${lo}`, `${key} < ${hi}`];
    if (bound === 'upper') conds.unshift(`not upper_inf(x.${BLOCK_RANGE})`);
    const after = w.page?.after;
    if (after !== undefined) conds.push(`(${key}, x.id) > (${params.add(after[0], 'int8')}, ${params.add(after[1], 'text')})`);
    let join = '';
    const self = w.matches('x', heightOf(bound, 'x'));
    if (self !== 'true') {
      // a change is in the filter when the version before it or the one after it is: the partner
      // version is one index probe per row (a join, so that a LIMIT keeps it a nested loop)
      const y = params.alias();
      const partner = bound === 'lower' ? `not upper_inf(${y}.${BLOCK_RANGE}) and upper(${y}.${BLOCK_RANGE})` : `lower(${y}.${BLOCK_RANGE})`;
      join = ` left join ${t.table} ${y} on ${partner} = ${key} and ${y}.id = x.id`;
      conds.push(`((${self}) or (${y}.id is not null and (${w.matches(y, heightOf(other, y))})))`);
    }
    const tail = w.page !== undefined ? ` order by ${key}, x.id limit ${w.page.limit + 1}` : '';
    return `select x.*, ${key} as __h from ${t.table} x${join} where ${conds.join(' and ')}${tail}`;
  };
  const begun = side('lower');
  const ended = side('upper');
  return `(${begun}) a full join (${ended}) b on a.id = b.id and a.__h = b.__h`;
}

/**
 * A page of changes over {@link changesJoin}: `__height`, `__id`, `__has_after`, `__has_before`, and
 * every column of the version after (`a.<column>`) and before (`b.<column>`).
 */
export function changesPageSelect(t: Pick<ReadTable, 'columns'>, join: string, limit: number): string {
  return (
    `select coalesce(a.__h, b.__h)::text as __height, coalesce(a.id, b.id) as __id, a.id is not null as __has_after, b.id is not null as __has_before, ` +
    `${selectList('a', t, 'a.')}, ${selectList('b', t, 'b.')} from ${join} ` +
    `order by coalesce(a.__h, b.__h), coalesce(a.id, b.id) limit ${limit + 1}`
  );
}

/** The number of changes over {@link changesJoin}, as `n`. */
export function changesCountSelect(join: string): string {
  return `select count(*) as n from ${join}`;
}
