/**
 * The host half of the sandbox's timers (isolate/timers.ts): each wait the mapping arms is a host
 * timer, answered true when it fires and false when the mapping cancels it. Host timers are
 * unref'd (a mapping's timer never keeps the process alive); `dropAll` forgets every wait when
 * the runtime is thrown away, without answering into it.
 */
export interface TimerHost {
  sleep(id: number, ms: number): Promise<boolean>;
  cancel(ids: readonly number[]): void;
  dropAll(): void;
}

export function createTimerHost(): TimerHost {
  const waits = new Map<number, { stop: () => void; resolve: (fired: boolean) => void }>();
  return {
    sleep(id, ms) {
      return new Promise<boolean>((resolve) => {
        const fire = () => {
          waits.delete(id);
          resolve(true);
        };
        if (ms <= 0) {
          const immediate = setImmediate(fire).unref();
          waits.set(id, { stop: () => clearImmediate(immediate), resolve });
        } else {
          const timeout = setTimeout(fire, ms).unref();
          waits.set(id, { stop: () => clearTimeout(timeout), resolve });
        }
      });
    },
    cancel(ids) {
      for (const id of ids) {
        const w = waits.get(id);
        if (w === undefined) continue;
        waits.delete(id);
        w.stop();
        w.resolve(false);
      }
    },
    dropAll() {
      for (const w of waits.values()) w.stop();
      waits.clear();
    },
  };
}
