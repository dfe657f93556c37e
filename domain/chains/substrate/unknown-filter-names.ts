import type { Problem } from '../../errors.ts';
import type { DataSource, Template } from '../../project/project-model.ts';

/** What a runtime has, by pallet (as mappings name them: `balances`): its event names and its call names. */
export interface RuntimeNames {
  events: Record<string, readonly string[]>;
  calls: Record<string, readonly string[]>;
}

/**
 * Event and call filters that name a pallet, event or call a runtime does not have: they match
 * nothing in that runtime's blocks. Not an error (SubQuery's node starts and indexes nothing for
 * them, and a project may span a runtime upgrade that adds the pallet), but worth a warning that
 * names the field and what the runtime has instead, since a typo looks the same.
 */
export function unknownFilterNames(dataSources: readonly (DataSource | Template)[], runtime: RuntimeNames, where: 'dataSources' | 'templates'): Problem[] {
  const problems: Problem[] = [];
  dataSources.forEach((ds, d) =>
    ds.mapping.handlers.forEach((h, i) => {
      if (h.kind !== 'substrate/EventHandler' && h.kind !== 'substrate/CallHandler') return;
      const { module, method } = h.filter ?? {};
      const names = h.kind === 'substrate/EventHandler' ? runtime.events : runtime.calls;
      const what = h.kind === 'substrate/EventHandler' ? 'event' : 'call';
      const path = `${where}[${d}].mapping.handlers[${i}].filter`;
      if (module !== undefined && !Object.hasOwn(names, module)) {
        problems.push({ path: `${path}.module`, message: `the chain's runtime has no pallet "${module}" with ${what}s; it has ${list(Object.keys(names))}` });
        return;
      }
      if (method === undefined) return;
      const pallets = module === undefined ? Object.keys(names) : [module];
      if (!pallets.some((p) => names[p]!.includes(method))) {
        const scope = module === undefined ? 'in any pallet' : `in ${module}`;
        problems.push({
          path: `${path}.method`,
          message: `the chain's runtime has no ${what} "${method}" ${scope}${module === undefined ? '' : `; it has ${list(names[module]!)}`}`,
        });
      }
    }),
  );
  return problems;
}

const list = (names: readonly string[]) => (names.length > 12 ? `${names.slice(0, 12).join(', ')}, …` : names.join(', '));
