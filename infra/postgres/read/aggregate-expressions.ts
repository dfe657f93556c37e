import { quoteIdent } from '../sql.ts';
import { hexOf, type ReadColumn } from './select-list.ts';

/** pg-aggregates' functions, as SubQuery exposes them. Only `distinctCount` (and `count`) are safe by default. */
export const AGGREGATE_FNS = [
  'sum',
  'distinctCount',
  'min',
  'max',
  'average',
  'stddevSample',
  'stddevPopulation',
  'varianceSample',
  'variancePopulation',
] as const;
export type AggregateFn = (typeof AGGREGATE_FNS)[number];

const SQL_FN: Record<Exclude<AggregateFn, 'distinctCount'>, string> = {
  sum: 'sum',
  min: 'min',
  max: 'max',
  average: 'avg',
  stddevSample: 'stddev_samp',
  stddevPopulation: 'stddev_pop',
  varianceSample: 'var_samp',
  variancePopulation: 'var_pop',
};

/** The aggregate as SQL; `output` casts it the way GraphQL shows it (exact numbers as text, Float as numbers). */
export function aggregateSql(fn: AggregateFn, c: ReadColumn, alias: string, output: boolean): string {
  const ref = `${alias}.${quoteIdent(c.column)}`;
  if (fn === 'distinctCount') return `count(distinct ${ref})${output ? '::text' : ''}`;
  const call = fn === 'sum' ? `coalesce(sum(${ref}), 0)` : `${SQL_FN[fn]}(${ref})`;
  if (!output) return c.kind === 'datetime' ? call : `${call}::numeric`;
  // min/max keep Int and Float columns as numbers, and everything of a Float column is one
  if (c.kind === 'float' || ((fn === 'min' || fn === 'max') && c.kind === 'int')) return call;
  return `${call}::text`;
}

/** An aggregate that orders rows by their related rows: min and max keep the column's type, the rest as aggregateSql compares them. */
export function orderingAggregateSql(fn: AggregateFn, c: ReadColumn, alias: string): string {
  const ref = `${alias}.${quoteIdent(c.column)}`;
  if (fn === 'distinctCount') return `count(distinct ${ref})`;
  return fn === 'min' || fn === 'max' ? `${fn}(${ref})` : aggregateSql(fn, c, alias, false);
}

/** A groupBy key's value: the column (bytes as 0x-hex), or a timestamp truncated to the hour or day. */
export function groupingSql(alias: string, c: ReadColumn, truncatedTo?: 'hour' | 'day'): string {
  const ref = `${alias}.${quoteIdent(c.column)}`;
  if (truncatedTo !== undefined) return `date_trunc('${truncatedTo}', ${ref})`;
  return c.kind === 'bytes' ? hexOf(ref) : ref;
}
