import { BLOCK_RANGE } from '../schema-ddl.ts';
import { quoteIdent } from '../sql.ts';
import type { ReadStatement } from './read-statement.ts';
import { selectList, type ReadTable } from './select-list.ts';
import { SqlParams, versionCondition } from './sql-params.ts';

/** The rows of `t` whose id is one of `ids`, as seen at `height` (the live ones when undefined). */
export function rowsById(t: ReadTable, ids: readonly string[], height: bigint | undefined): ReadStatement {
  const params = new SqlParams();
  const list = params.addList(ids, 'text');
  if (height === undefined || !t.historical) {
    return {
      text: `select ${selectList('t', t)} from ${t.table} t where t.id = any(${list}) and ${versionCondition(t, 't', height, params)}`,
      values: params.values,
    };
  }
  // Versions of an id never overlap, so the one alive at H is the latest begun at or before H, if it
  // has not ended by H: one step back along the (id, lower) index per id, where `__block_range @> H`
  // would read every version of the id (hundreds for a busy account).
  const h = params.add(height.toString(), 'int8');
  const text =
    `select ${selectList('t', t)} from unnest(${list}) as u(id) cross join lateral ` +
    `(select * from ${t.table} v where v.id = u.id and lower(v.${BLOCK_RANGE}) <= ${h} order by lower(v.${BLOCK_RANGE}) desc limit 1) t ` +
    `where upper_inf(t.${BLOCK_RANGE}) or upper(t.${BLOCK_RANGE}) > ${h}`;
  return { text, values: params.values };
}

/**
 * The rows of `t` whose `column` holds one of `ids` (a one-to-one `@derivedFrom`), at `height`, each
 * with that value as `__parent`, in id order.
 */
export function rowsByForeignKey(t: ReadTable, column: string, ids: readonly string[], height: bigint | undefined): ReadStatement {
  const params = new SqlParams();
  const list = params.addList(ids, 'text');
  const col = `t.${quoteIdent(column)}`;
  const text = `select ${col} as __parent, ${selectList('t', t)} from ${t.table} t where ${col} = any(${list}) and ${versionCondition(t, 't', height, params)} order by t.id`;
  return { text, values: params.values };
}
