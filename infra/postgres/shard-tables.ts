import { qualified } from './sql.ts';

/** The shard's tables, schema-qualified. */
export interface ShardTables {
  blocks: string;
  transactions: string;
  logs: string;
  state: string;
}

export function shardTables(schema: string): ShardTables {
  const t = (name: string) => qualified(schema, name);
  return { blocks: t('blocks'), transactions: t('transactions'), logs: t('logs'), state: t('shard_state') };
}
