import { IdxError } from '../../domain/errors.ts';
import { execute, qualified, quoteIdent, type Executor } from './sql.ts';
import type { Db } from './create-db.ts';

/**
 * Blue/green (docs/deploy.md): a deployment name points at the schema served under it. The
 * pointers live in a schema of idx's own, beside the projects' schemas in the same database, so
 * one transaction moves a name and every idx-query serving it hears of it (DECISIONS.md).
 */
export const DEPLOYMENTS_SCHEMA = 'idx_public';
export const DEPLOYMENTS_TABLE = 'deployments';
/** NOTIFY channel: the payload is `{"name": …, "schema": …}` of the pointer just moved. */
export const DEPLOYMENTS_CHANNEL = 'idx_public.deployments';

const table = () => qualified(DEPLOYMENTS_SCHEMA, DEPLOYMENTS_TABLE);

export interface DeploymentPointer {
  name: string;
  /** the schema served under `name` */
  schema: string;
  /** the schema served before, kept until dropped by `idx-node force-clean` */
  previous: string | null;
  promotedAt: Date;
}

/**
 * Points `name` at `schema` in one transaction, and tells the listeners when it commits. The
 * target must be an indexed project schema (it has `_metadata`). Returns the pointer as set.
 */
export async function promoteDeployment(db: Db, name: string, schema: string): Promise<DeploymentPointer> {
  return db.kysely.transaction().execute(async (tx) => {
    // two promotions at once (or a first one racing the table's creation) wait for each other
    await execute(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idx.deployments`]);
    const [indexed] = await execute<{ ok: boolean }>(tx, `select to_regclass($1) is not null as ok`, [qualified(schema, '_metadata')]);
    if (indexed?.ok !== true)
      throw new IdxError('PROJECT_NOT_INDEXED', `cannot promote "${name}" to schema "${schema}": no project is indexed there (${db.description})`);
    await execute(tx, `create schema if not exists ${quoteIdent(DEPLOYMENTS_SCHEMA)}`);
    await execute(
      tx,
      `create table if not exists ${table()} (name text primary key, live_schema text not null, previous_schema text, promoted_at timestamptz not null default now())`,
    );
    const [row] = await execute<{ live_schema: string; previous_schema: string | null; promoted_at: Date }>(
      tx,
      // a name never promoted served the schema of that name, if there is one: that is what it replaces
      `insert into ${table()} as d (name, live_schema, previous_schema)
       values ($1, $2, case when $1::text <> $2::text and to_regclass(format('%I._metadata', $1::text)) is not null then $1::text end)
       on conflict (name) do update set
         previous_schema = case when d.live_schema = excluded.live_schema then d.previous_schema else d.live_schema end,
         live_schema = excluded.live_schema, promoted_at = now()
       returning live_schema, previous_schema, promoted_at`,
      [name, schema],
    );
    await execute(tx, `select pg_notify($1, $2)`, [DEPLOYMENTS_CHANNEL, JSON.stringify({ name, schema })]);
    return { name, schema: row!.live_schema, previous: row!.previous_schema, promotedAt: row!.promoted_at };
  });
}

/** The schema `name` points at, or undefined when it is no deployment (then `name` is a schema itself). */
export async function readDeployment(db: Executor, name: string): Promise<string | undefined> {
  const [exists] = await execute<{ ok: boolean }>(db, `select to_regclass($1) is not null as ok`, [table()]);
  if (exists?.ok !== true) return undefined;
  const [row] = await execute<{ live_schema: string }>(db, `select live_schema from ${table()} where name = $1`, [name]);
  return row?.live_schema;
}

/** The deployment names that point at `schema` (a live schema is not dropped while it is served). */
export async function deploymentsServing(db: Executor, schema: string): Promise<string[]> {
  const [exists] = await execute<{ ok: boolean }>(db, `select to_regclass($1) is not null as ok`, [table()]);
  if (exists?.ok !== true) return [];
  return (await execute<{ name: string }>(db, `select name from ${table()} where live_schema = $1 order by name`, [schema])).map((r) => r.name);
}
