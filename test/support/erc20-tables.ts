import type { Db } from '../../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../../infra/postgres/sql.ts';

/** Every version row of the ERC20 tables, without the wall-clock columns, in a stable order. */
export async function erc20Tables(db: Db, schema: string) {
  const s = quoteIdent(schema);
  const transfers = await execute(
    db.kysely,
    `select id, block_height::text, timestamp, from_id, to_id, value::text, transaction_hash, contract_address, __block_range::text as range
       from ${s}.transfers order by id, lower(__block_range)`,
  );
  const accounts = await execute(db.kysely, `select id, balance::text, __block_range::text as range from ${s}.accounts order by id, lower(__block_range)`);
  const starters = await execute(db.kysely, `select id, block_height::text, __block_range::text as range from ${s}.starter_entities order by id`);
  return { transfers, accounts, starters };
}
