import { IdxError } from '../errors.ts';
import type { EntityData, StoreOperation } from './entity-store.ts';
import type { IdFilter } from './id-filter.ts';

/** A version row to insert: `data` is live over `[lower, upper)`; `upper: null` is open-ended. */
export interface VersionRow {
  id: string;
  data: EntityData;
  lower: number;
  upper: number | null;
}

/** One entity table's share of a historical flush. */
export interface HistoricalTablePlan {
  /**
   * Ids whose version from an earlier flush ends at the paired height: its range is closed there,
   * or, when it began at that very height, it is replaced (deleted) instead of left empty.
   */
  closeIds: string[];
  closeHeights: number[];
  inserts: VersionRow[];
}

/** One entity table's share of a plain (`--disable-historical`) flush. */
export interface PlainTablePlan {
  upserts: { id: string; data: EntityData }[];
  removes: string[];
}

/** Per entity, per id: its one write, or its writes in order (most ids are written once). */
function groupByEntityAndId(ops: readonly StoreOperation[]): Map<string, Map<string, StoreOperation | StoreOperation[]>> {
  const byEntity = new Map<string, Map<string, StoreOperation | StoreOperation[]>>();
  let lastEntity: string | undefined;
  let byId: Map<string, StoreOperation | StoreOperation[]> | undefined;
  for (const op of ops) {
    if (op.op === 'set' && (op.data === undefined || op.data === null)) {
      throw new IdxError('STORE_INVALID_OPERATION', `store set of ${op.entity} "${op.id}" at block ${op.height} has no data`);
    }
    if (op.entity !== lastEntity) {
      lastEntity = op.entity;
      byId = byEntity.get(op.entity);
      if (byId === undefined) byEntity.set(op.entity, (byId = new Map()));
    }
    const had = byId!.get(op.id);
    if (had === undefined) byId!.set(op.id, op);
    else if (Array.isArray(had)) had.push(op);
    else byId!.set(op.id, [had, op]);
  }
  return byEntity;
}

/**
 * Turns the ordered writes of whole blocks into version rows per table: within a block the last
 * write of an id wins; each surviving write ends the id's previous version at its height; a set
 * opens a version that lasts until the id's next write (or stays open).
 */
export function planHistoricalWrites(ops: readonly StoreOperation[]): Map<string, HistoricalTablePlan> {
  const plans = new Map<string, HistoricalTablePlan>();
  for (const [entity, byId] of groupByEntityAndId(ops)) {
    const plan: HistoricalTablePlan = { closeIds: [], closeHeights: [], inserts: [] };
    plans.set(entity, plan);
    for (const [id, one] of byId) {
      if (!Array.isArray(one)) {
        plan.closeIds.push(id);
        plan.closeHeights.push(one.height);
        if (one.op === 'set') plan.inserts.push({ id, data: one.data!, lower: one.height, upper: null });
        continue;
      }
      const list = one;
      // Writes arrive in block order; the stable sort only guards a caller that interleaves blocks.
      if (!isSortedByHeight(list)) list.sort((a, b) => a.height - b.height);
      const last: StoreOperation[] = [];
      for (const op of list) {
        if (last.length > 0 && last[last.length - 1]!.height === op.height) last[last.length - 1] = op;
        else last.push(op);
      }
      plan.closeIds.push(id);
      plan.closeHeights.push(last[0]!.height);
      for (let i = 0; i < last.length; i++) {
        const op = last[i]!;
        if (op.op !== 'set') continue;
        plan.inserts.push({ id, data: op.data!, lower: op.height, upper: i + 1 < last.length ? last[i + 1]!.height : null });
      }
    }
  }
  return plans;
}

/**
 * The plan without the closes of ids `stored` proves were never stored (a table one store writes
 * alone, from empty: it has no version of them to close, and closing costs the database a lookup
 * per id); `stored` then holds every id of the plan (one only removed as well: holding too much
 * only keeps a close). A "maybe" keeps the close: closing an absent id changes nothing. The plan
 * names each id once in its closes, so each id is hashed once.
 */
export function closingStoredOnly(plan: HistoricalTablePlan, stored: IdFilter): HistoricalTablePlan {
  const closeIds: string[] = [];
  const closeHeights: number[] = [];
  for (let i = 0; i < plan.closeIds.length; i++) {
    if (!stored.add(plan.closeIds[i]!)) continue;
    closeIds.push(plan.closeIds[i]!);
    closeHeights.push(plan.closeHeights[i]!);
  }
  return { closeIds, closeHeights, inserts: plan.inserts };
}

/** Without history only the final state of each id matters. */
export function planPlainWrites(ops: readonly StoreOperation[]): Map<string, PlainTablePlan> {
  const plans = new Map<string, PlainTablePlan>();
  for (const [entity, byId] of groupByEntityAndId(ops)) {
    const plan: PlainTablePlan = { upserts: [], removes: [] };
    plans.set(entity, plan);
    for (const [id, one] of byId) {
      let final = Array.isArray(one) ? one[0]! : one;
      if (Array.isArray(one)) for (const op of one) if (op.height >= final.height) final = op;
      if (final.op === 'set') plan.upserts.push({ id, data: final.data! });
      else plan.removes.push(id);
    }
  }
  return plans;
}

function isSortedByHeight(list: readonly StoreOperation[]): boolean {
  for (let i = 1; i < list.length; i++) if (list[i]!.height < list[i - 1]!.height) return false;
  return true;
}
