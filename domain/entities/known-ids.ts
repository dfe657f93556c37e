/**
 * Every id written to the entity types whose table started empty, while they fit a budget: a type's
 * set holds each id it may hold in the database, so an id outside it is certainly absent. Ids are never
 * taken out (a removal, a discarded block or a rewind leaves an id that may exist again, which only costs
 * a database read). Past the budget the largest set is dropped for good: its type is then unknown.
 *
 * A type nobody has asked about (`absent`, `read`) is written, not read, by the mappings (an ERC20 project's
 * transfers): its set is dropped for good once it holds {@link UNASKED_IDS_CAP} ids, so it does not fill
 * the budget, and the memory, with ids only a later read could use. That read then costs a database read.
 */
export interface KnownIds {
  add(entity: string, id: string): void;
  /** true only when `id` is certainly not in `entity`'s table */
  absent(entity: string, id: string): boolean;
  /** the mappings read `entity` where this set was not asked (inside the sandbox): its ids are worth their memory */
  read(entity: string): void;
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

/** the ids a type never asked about may hold before its set is dropped (W10's 400,000 transfers would take ~40 MiB) */
export const UNASKED_IDS_CAP = 10_000;

export function createKnownIds(freshEntities: readonly string[], budget: number, unaskedCap = UNASKED_IDS_CAP): KnownIds {
  const sets = new Map<string, Set<string>>(freshEntities.map((e) => [e, new Set()]));
  const asked = new Set<string>();
  let total = 0;
  const drop = (entity: string) => {
    total -= sets.get(entity)!.size;
    sets.delete(entity);
  };
  const dropLargest = () => {
    let largest: string | undefined;
    for (const [entity, ids] of sets) if (largest === undefined || ids.size > sets.get(largest)!.size) largest = entity;
    drop(largest!);
  };
  return {
    add(entity, id) {
      const ids = sets.get(entity);
      if (ids === undefined || ids.has(id)) return;
      ids.add(id);
      total++;
      if (ids.size > unaskedCap && !asked.has(entity)) drop(entity);
      else if (total > budget) dropLargest();
    },
    read(entity) {
      asked.add(entity);
    },
    absent(entity, id) {
      const ids = sets.get(entity);
      if (ids === undefined) return false;
      asked.add(entity);
      return !ids.has(id);
    },
    forgetAll() {
      sets.clear();
      total = 0;
    },
  };
}
