/**
 * Every id written to the entity types whose table started empty, while they fit a budget: a type's
 * set holds each id it may hold in the database, so an id outside it is certainly absent. Ids are never
 * taken out (a removal, a discarded block or a rewind leaves an id that may exist again, which only costs
 * a database read). Past the budget the largest set is dropped for good: its type is then unknown.
 */
export interface KnownIds {
  add(entity: string, id: string): void;
  /** true only when `id` is certainly not in `entity`'s table */
  absent(entity: string, id: string): boolean;
  /** every type unknown from now on: something wrote where these sets could not see it */
  forgetAll(): void;
}

/** the host's: about 25 MiB of short ids; a W10 project's 10,000 accounts fit, its 400,000 transfers (never read) do not */
export const KNOWN_IDS_BUDGET = 200_000;
/**
 * the sandbox's, smaller: its ids count against the mappings' memory limit (256 MB), so they take ~6 MB of it at most;
 * past it a get crosses to the host, whose own set still answers without a database read
 */
export const SANDBOX_KNOWN_IDS_BUDGET = 50_000;

export function createKnownIds(freshEntities: readonly string[], budget: number): KnownIds {
  const sets = new Map<string, Set<string>>(freshEntities.map((e) => [e, new Set()]));
  let total = 0;
  const dropLargest = () => {
    let largest: string | undefined;
    for (const [entity, ids] of sets) if (largest === undefined || ids.size > sets.get(largest)!.size) largest = entity;
    total -= sets.get(largest!)!.size;
    sets.delete(largest!);
  };
  return {
    add(entity, id) {
      const ids = sets.get(entity);
      if (ids === undefined || ids.has(id)) return;
      ids.add(id);
      if (++total > budget) dropLargest();
    },
    absent: (entity, id) => sets.get(entity)?.has(id) === false,
    forgetAll() {
      sets.clear();
      total = 0;
    },
  };
}
