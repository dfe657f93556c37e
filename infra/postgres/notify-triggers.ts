import type { Kysely } from 'kysely';
import { FULL_TEXT_COLUMN, type SchemaModel } from '../../domain/entities/entity-model.ts';
import { CHAIN_COLUMN } from '../../domain/entities/chain-tables.ts';
import { notifyChannel } from '../../domain/entities/names.ts';
import { resolveColumns } from './column-codec.ts';
import { BLOCK_RANGE } from './schema-ddl.ts';
import { execute, qualified, quoteIdent, quoteLiteral } from './sql.ts';

/** The trigger on every entity table, and the function it runs (one per project schema). */
export const NOTIFY_TRIGGER = '_idx_notify';
const NOTIFY_FUNCTION = '_idx_notify';

/** `NOTIFY` refuses payloads of 8000 bytes or more; above this `_entity` is left out (null). */
export const NOTIFY_PAYLOAD_LIMIT = 8000;

export interface NotifyTriggerOptions {
  schema: string;
  /** tables carry `__block_range` */
  historical: boolean;
}

/**
 * What a listener receives on {@link notifyChannel}: the row's `id`, what happened, and the row
 * itself keyed by column, without `__block_range` (nor `--multi-chain`'s `__chain`). Numeric columns (BigInt, BigDecimal, and their
 * lists) arrive as strings, so no digits are lost to JSON numbers. `_entity` is null when the
 * payload would pass NOTIFY's 8000-byte limit: the listener then reads the row itself.
 */
export interface NotifyPayload {
  id: string;
  mutation_type: 'INSERT' | 'UPDATE' | 'DELETE';
  _entity: Record<string, unknown> | null;
}

/*
 * Why a deferred constraint trigger rather than a plain AFTER trigger: a flush closes the live
 * version (an UPDATE) before it inserts the next one, so at the end of the closing statement the
 * next version does not exist yet and the close would read as a DELETE. Fired at commit, each
 * event sees the whole flush and tells an update from a removal exactly as SubQuery does:
 * - a new version is an INSERT, or an UPDATE when another version of the id ends where it starts;
 * - a version that ends (closed, or inserted already closed within one flush) is a DELETE unless
 *   another version starts where it ends;
 * - a rewind: a reopened version is an UPDATE; a deleted live version is a DELETE only when the id
 *   has no live version left (else the reopened one reports it); deleted closed versions say nothing.
 * The notifications of one commit go out together when it commits, so listeners never see a flush
 * that was rolled back.
 */
function functionSql(schema: string): string {
  const fn = qualified(schema, NOTIFY_FUNCTION);
  return `
create or replace function ${fn}() returns trigger language plpgsql as $fn$
declare
  channel text := TG_ARGV[0];
  historical boolean := TG_ARGV[1] = 'historical';
  tbl text := format('%I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME);
  r record;
  other boolean;
begin
  if TG_OP = 'DELETE' then r := OLD; else r := NEW; end if;
  if not historical then
    perform ${qualified(schema, `${NOTIFY_FUNCTION}_send`)}(channel, TG_OP, to_jsonb(r), TG_ARGV);
    return null;
  end if;
  if TG_OP = 'INSERT' then
    execute format('select exists (select 1 from %s where id = $1 and upper(${BLOCK_RANGE}) = $2)', tbl) into other using r.id, lower(r.${BLOCK_RANGE});
    perform ${qualified(schema, `${NOTIFY_FUNCTION}_send`)}(channel, case when other then 'UPDATE' else 'INSERT' end, to_jsonb(r), TG_ARGV);
  elsif TG_OP = 'UPDATE' then
    if upper_inf(r.${BLOCK_RANGE}) then
      -- reopened by a rewind, or changed in place while live
      perform ${qualified(schema, `${NOTIFY_FUNCTION}_send`)}(channel, 'UPDATE', to_jsonb(r), TG_ARGV);
      return null;
    end if;
    if not upper_inf(OLD.${BLOCK_RANGE}) then return null; end if;
  else
    if not upper_inf(r.${BLOCK_RANGE}) then return null; end if;
    execute format('select exists (select 1 from %s where id = $1 and upper_inf(${BLOCK_RANGE}))', tbl) into other using r.id;
    if not other then
      perform ${qualified(schema, `${NOTIFY_FUNCTION}_send`)}(channel, 'DELETE', to_jsonb(r), TG_ARGV);
    end if;
    return null;
  end if;
  -- the end of a version: a removal unless the next version starts there
  if not upper_inf(r.${BLOCK_RANGE}) then
    execute format('select exists (select 1 from %s where id = $1 and lower(${BLOCK_RANGE}) = $2)', tbl) into other using r.id, upper(r.${BLOCK_RANGE});
    if not other then
      perform ${qualified(schema, `${NOTIFY_FUNCTION}_send`)}(channel, 'DELETE', to_jsonb(r), TG_ARGV);
    end if;
  end if;
  return null;
end
$fn$`;
}

/** Builds and sends one payload; `args` is TG_ARGV, whose items from the third on name the numeric columns, sent as strings. */
function sendFunctionSql(schema: string): string {
  return `
create or replace function ${qualified(schema, `${NOTIFY_FUNCTION}_send`)}(channel text, kind text, row_json jsonb, args text[]) returns void language plpgsql as $fn$
declare
  entity jsonb := row_json - '${BLOCK_RANGE}' - '${CHAIN_COLUMN}' - '${FULL_TEXT_COLUMN}';
  payload text;
  col text;
  v jsonb;
begin
  for i in array_lower(args, 1) + 2 .. coalesce(array_upper(args, 1), 0) loop
    col := args[i];
    v := entity -> col;
    if jsonb_typeof(v) = 'number' then
      entity := jsonb_set(entity, array[col], to_jsonb(v #>> '{}'));
    elsif jsonb_typeof(v) = 'array' then
      entity := jsonb_set(entity, array[col], (
        select coalesce(jsonb_agg(case when jsonb_typeof(x) = 'number' then to_jsonb(x #>> '{}') else x end order by n), '[]'::jsonb)
        from jsonb_array_elements(v) with ordinality as e(x, n)));
    end if;
  end loop;
  payload := jsonb_build_object('id', row_json -> 'id', 'mutation_type', kind, '_entity', entity)::text;
  if octet_length(payload) >= ${NOTIFY_PAYLOAD_LIMIT} then
    payload := jsonb_build_object('id', row_json -> 'id', 'mutation_type', kind, '_entity', null)::text;
  end if;
  perform pg_notify(channel, payload);
end
$fn$`;
}

/**
 * `--subscription` on the node: a notification trigger on every entity table of the model, sending
 * {@link NotifyPayload}s on `notifyChannel(schema, table)`. Replaces triggers left by an earlier
 * run, so a changed model or mode is picked up; safe to run at every start.
 */
export async function installNotifyTriggers(db: Kysely<any>, model: SchemaModel, options: NotifyTriggerOptions): Promise<void> {
  const { schema, historical } = options;
  await db.transaction().execute(async (tx) => {
    await execute(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idx.ddl:${schema}`]);
    await execute(tx, sendFunctionSql(schema));
    await execute(tx, functionSql(schema));
    for (const entity of model.entities) {
      const table = qualified(schema, entity.table);
      const numeric = resolveColumns(entity, model, schema)
        .filter((c) => c.sqlType === 'numeric' || c.sqlType === 'numeric[]')
        .map((c) => c.column);
      const args = [notifyChannel(schema, entity.table), historical ? 'historical' : 'plain', ...numeric].map(quoteLiteral).join(', ');
      await execute(tx, `drop trigger if exists ${quoteIdent(NOTIFY_TRIGGER)} on ${table}`);
      await execute(
        tx,
        `create constraint trigger ${quoteIdent(NOTIFY_TRIGGER)} after insert or update or delete on ${table} ` +
          `deferrable initially deferred for each row execute function ${qualified(schema, NOTIFY_FUNCTION)}(${args})`,
      );
    }
  });
}

/** The node without `--subscription`: removes the triggers and functions of an earlier run, if any. */
export async function dropNotifyTriggers(db: Kysely<any>, schema: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await execute(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idx.ddl:${schema}`]);
    // cascade takes the triggers that call it, on whichever tables they are
    await execute(tx, `drop function if exists ${qualified(schema, NOTIFY_FUNCTION)}() cascade`);
    await execute(tx, `drop function if exists ${qualified(schema, `${NOTIFY_FUNCTION}_send`)}(text, text, jsonb, text[])`);
  });
}

/** The tables of a schema that carry the notification trigger (for tests and diagnostics). */
export async function tablesWithNotifyTriggers(db: Kysely<any>, schema: string): Promise<string[]> {
  const rows = await execute<{ table: string }>(
    db,
    `select c.relname as table from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1 and t.tgname = $2 order by c.relname`,
    [schema, NOTIFY_TRIGGER],
  );
  return rows.map((r) => r.table);
}
