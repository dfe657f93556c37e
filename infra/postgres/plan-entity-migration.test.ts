import t from 'tap';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import { diffSchemas } from '../../domain/entities/schema-diff.ts';
import { buildTableDdl } from './schema-ddl.ts';
import { planEntityMigration } from './plan-entity-migration.ts';

const options = { schema: 'app', historical: true, timestampField: true };
const from = parseSchema(`enum Kind { A, B } type Token @entity { id: ID!, name: String, tags: [String], kind: Kind } type Gone @entity { id: ID! }`);
const to = parseSchema(`enum Kind { A } type Token @entity { id: ID!, name: Int, tags: String, supply: BigInt!, createdAt: Date }`);

t.test('the steps in order, each named for its change; then the DDL of every table of the new model', async (t) => {
  const steps = planEntityMigration(from, to, diffSchemas(from, to), options);
  const ddl = buildTableDdl(to, options);
  t.same(
    steps.slice(0, steps.length - ddl.length).map((s) => ({ ...s, change: s.change.kind })),
    [
      { change: 'drop-enum-values', sql: 'drop index if exists "app"."gones_id_lower_versions"' },
      { change: 'drop-enum-values', sql: 'drop index if exists "app"."gones_id_live"' },
      {
        change: 'drop-field',
        sql: 'alter table "app"."tokens" rename column "created_at" to "__created_at"',
        ifColumn: { table: 'tokens', column: 'created_at' },
      },
      { change: 'drop-entity', sql: 'drop table if exists "app"."gones" cascade' },
      { change: 'drop-field', sql: 'alter table "app"."tokens" drop column if exists "kind"' },
      { change: 'alter-field', sql: 'alter table "app"."tokens" alter column "name" type integer using ("name"::text)::integer' },
      {
        change: 'alter-field',
        refusal:
          'schema migration of "app": Token: field tags changed from [String] to String turns a list into a single value, which cannot be done in place; rename the field instead',
      },
      {
        change: 'add-field',
        refuseIfRows: '"app"."tokens"',
        refusal:
          'schema migration of "app": Token: added field supply: BigInt! is required, but tokens already has rows, which have no value for it. ' +
          'Make it optional (drop the "!"), or index into a new schema with --db-schema <name>, or run idx-node force-clean to start over',
      },
      { change: 'add-field', sql: 'alter table "app"."tokens" add column "supply" numeric not null' },
      { change: 'add-field', sql: 'alter table "app"."tokens" add column "created_at" timestamp' },
      { change: 'drop-enum-values', sql: 'alter type "app"."kind" rename to "kind__before_migration"' },
      { change: 'drop-enum-values', sql: `create type "app"."kind" as enum ('A')` },
      { change: 'drop-enum-values', sql: 'drop type "app"."kind__before_migration"' },
    ],
  );
  t.same(
    steps.slice(steps.length - ddl.length).map((s) => ('sql' in s ? s.sql : s.refusal)),
    ddl,
  );
});

t.test('no change, nothing but the DDL of the tables (made if missing)', async (t) => {
  t.same(
    planEntityMigration(to, to, [], options).map((s) => ('sql' in s ? s.sql : s.refusal)),
    buildTableDdl(to, options),
  );
});
