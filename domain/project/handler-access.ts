/**
 * Which entity types each handler of a schema's project read and wrote, kept in
 * `_metadata.idxHandlerAccess` (idx's own key). The sandbox notes every store call
 * (infra/sandbox/isolate/access-log.ts); the record is the union over every block indexed.
 * `complete` says it covers every row of the schema: it was kept from the schema's first block,
 * and no start since ran other code over rows already written (`--allow-schema-migration`).
 * A partial reindex (plan-reuse.ts) copies a handler's rows only from a complete record.
 */
export interface HandlerAccessRecord {
  complete: boolean;
  handlers: Record<string, HandlerAccess>;
}

export interface HandlerAccess {
  reads: string[];
  writes: string[];
}

/** `_metadata.idxHandlerAccess` as stored, or undefined when absent or not of this shape */
export function readAccessRecord(value: unknown): HandlerAccessRecord | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { complete, handlers } = value as Partial<HandlerAccessRecord>;
  if (typeof complete !== 'boolean' || handlers === null || typeof handlers !== 'object') return undefined;
  const list = (v: unknown) => Array.isArray(v) && v.every((e) => typeof e === 'string');
  const ok = Object.values(handlers).every((h) => h !== null && typeof h === 'object' && list(h.reads) && list(h.writes));
  return ok ? { complete, handlers } : undefined;
}

/** The record grown by a block's first reads (kind 1) and writes (kind 2) of entity types, per handler. */
export function createAccessRecorder(start: HandlerAccessRecord) {
  const sets = new Map<string, { reads: Set<string>; writes: Set<string> }>();
  for (const [name, h] of Object.entries(start.handlers)) sets.set(name, { reads: new Set(h.reads), writes: new Set(h.writes) });
  let version = 0;
  return {
    add(entries: readonly (readonly [handler: string, entity: string, kind: number])[]): void {
      for (const [handler, entity, kind] of entries) {
        let h = sets.get(handler);
        if (h === undefined) sets.set(handler, (h = { reads: new Set(), writes: new Set() }));
        const set = kind === 2 ? h.writes : h.reads;
        if (set.has(entity)) continue;
        set.add(entity);
        version++;
      }
    },
    /** grows with every new entry: a flush writes the record only when it moved */
    version: () => version,
    record(): HandlerAccessRecord {
      const handlers: Record<string, HandlerAccess> = {};
      for (const [name, h] of [...sets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        handlers[name] = { reads: [...h.reads].sort(), writes: [...h.writes].sort() };
      }
      return { complete: start.complete, handlers };
    },
  };
}

export type AccessRecorder = ReturnType<typeof createAccessRecorder>;
