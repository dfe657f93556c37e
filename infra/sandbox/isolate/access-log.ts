import type { AccessEntry } from './wire.ts';

/** A store operation's kind, as the access log keeps it: reading an entity type, or writing it. */
export const READ = 1;
export const WRITE = 2;

/**
 * Which entity types each handler read and wrote, noted at every store call inside the sandbox
 * (a read the sandbox's cache answers never reaches the host, so the host alone could not tell).
 * Only what is new travels to the host, with the block's outcome: after the first blocks a block
 * adds nothing, and the note is a map lookup. A partial reindex decides from these sets which
 * handlers' rows it can copy instead of running them (domain/project/plan-reuse.ts).
 */
export function createAccessLog(handlerOf: () => string) {
  const seen = new Map<string, Map<string, number>>();
  let fresh: AccessEntry[] = [];
  return {
    note(entity: string, kind: typeof READ | typeof WRITE): void {
      const handler = handlerOf();
      let types = seen.get(handler);
      if (types === undefined) seen.set(handler, (types = new Map()));
      const had = types.get(entity) ?? 0;
      if ((had & kind) !== 0) return;
      types.set(entity, had | kind);
      fresh.push([handler, entity, kind]);
    },
    /** what was noted since the last call, or undefined */
    take(): AccessEntry[] | undefined {
      if (fresh.length === 0) return undefined;
      const out = fresh;
      fresh = [];
      return out;
    },
    /** the block failed: what its handlers noted is forgotten with it, so the retry notes it again */
    drop(): void {
      for (const [handler, entity, kind] of fresh) {
        const types = seen.get(handler)!;
        const left = (types.get(entity) ?? 0) & ~kind;
        if (left === 0) types.delete(entity);
        else types.set(entity, left);
      }
      fresh = [];
    },
  };
}

export type AccessLog = ReturnType<typeof createAccessLog>;
