/** A teardown list for a benchmark, shaped like tap's `t.teardown` so test helpers accept it. */
export interface Teardowns {
  teardown(fn: () => unknown): void;
  /** runs the teardowns, last added first */
  run(): Promise<void>;
}

export function teardowns(): Teardowns {
  const fns: (() => unknown)[] = [];
  return {
    teardown: (fn) => void fns.push(fn),
    run: async () => {
      for (const fn of fns.reverse()) await fn();
    },
  };
}
