/**
 * The one live isolate/context of a mapping runtime, made when first needed. Callers of `ready()`
 * meanwhile share the one being made; one that failed to be made is forgotten, so the next
 * `ready()` tries again; `drop()` forgets the live one (after a timeout or a crash), so the next
 * `ready()` makes a fresh one.
 */
export interface LiveSlot<L> {
  ready(): Promise<L>;
  /** the live one, once `ready()` gave it and until `drop()` */
  readonly current: L | undefined;
  /** forgets the live one and returns it, for the caller to dispose of */
  drop(): L | undefined;
}

export function createLiveSlot<L>(create: () => Promise<L>): LiveSlot<L> {
  let making: Promise<L> | undefined;
  let current: L | undefined;
  return {
    async ready() {
      making ??= create();
      try {
        current = await making;
      } catch (err) {
        making = undefined;
        throw err;
      }
      return current;
    },
    get current() {
      return current;
    },
    drop() {
      const dropped = current;
      current = undefined;
      making = undefined;
      return dropped;
    },
  };
}
