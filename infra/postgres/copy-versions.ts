import { execute, executeCount, qualified, quoteIdent, type Executor } from './sql.ts';

/**
 * The versions of one entity table as a schema held them at `height`, into the same table of
 * another schema: every version that began at or before `height`, and those still live at
 * `height` live again (their later end is not this schema's to know). Built as a value, tested
 * as one; `columns` are the table's, `__block_range` among them.
 */
export function copyVersionsSql(input: { from: string; to: string; table: string; columns: readonly string[]; height: number }): {
  text: string;
  params: number[];
} {
  const list = input.columns.map(quoteIdent).join(', ');
  const values = input.columns
    .map((c) =>
      c === '__block_range'
        ? 'case when upper_inf(__block_range) or upper(__block_range) > $1 then int8range(lower(__block_range), null) else __block_range end'
        : quoteIdent(c),
    )
    .join(', ');
  return {
    text: `insert into ${qualified(input.to, input.table)} (${list}) select ${values} from ${qualified(input.from, input.table)} where lower(__block_range) <= $1`,
    params: [input.height],
  };
}

/**
 * Copies the tables' versions up to `height` (copyVersionsSql), the columns both tables have; the
 * rows copied per table. The target's indexes (but those of constraints) are made
 * again after the rows are in, as a bulk load does, rather than kept up on every insert, and its
 * triggers fire for none of them. Run it in a transaction: the indexes and triggers are back, or
 * nothing happened.
 */
export async function copyVersions(
  db: Executor,
  input: { from: string; to: string; tables: readonly string[]; height: number },
): Promise<Record<string, number>> {
  const copied: Record<string, number> = {};
  for (const table of input.tables) {
    const indexes = await execute<{ name: string; definition: string }>(
      db,
      `select i.indexname as name, i.indexdef as definition from pg_indexes i
        where i.schemaname = $1 and i.tablename = $2
          and not exists (select 1 from pg_constraint c where c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`,
      [input.to, table],
    );
    for (const i of indexes) await execute(db, `drop index ${qualified(input.to, i.name)}`);
    // copied rows are no news: --subscription's triggers would send a notification for each
    await execute(db, `alter table ${qualified(input.to, table)} disable trigger user`);
    // the columns both have: one the reused schema lacks (made with --timestamp-field=false, say) takes its default
    const columns = await execute<{ column_name: string }>(
      db,
      `select column_name from information_schema.columns where table_schema = $1 and table_name = $2
         and column_name in (select column_name from information_schema.columns where table_schema = $3 and table_name = $2)
       order by ordinal_position`,
      [input.to, table, input.from],
    );
    const sql = copyVersionsSql({ ...input, table, columns: columns.map((c) => c.column_name) });
    copied[table] = await executeCount(db, sql.text, sql.params);
    await execute(db, `alter table ${qualified(input.to, table)} enable trigger user`);
    for (const i of indexes) await execute(db, i.definition);
  }
  return copied;
}
