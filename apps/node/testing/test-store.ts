import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import type { SchemaModel } from '../../../domain/entities/entity-model.ts';
import type { StoredVersion } from '../../../domain/testing/entity-snapshot.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { createDb } from '../../../infra/postgres/create-db.ts';
import { dropProjectSchema } from '../../../infra/postgres/prepare-project-schema.ts';
import { readEntityVersions } from '../../../infra/postgres/read-entity-versions.ts';
import type { NodeOptions } from '../start-up/node-options.ts';
import { prepareProjectStore } from '../start-up/open-project-store.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The store one test runs against, thrown away after it: an in-memory PGlite by default (the
 * project's own .idx-data is never touched), or with DB_* set the schema `test-<schema>` of that
 * PostgreSQL, as SubQuery names it, dropped again on close.
 */
export async function openTestStore(o: { options: NodeOptions; model: SchemaModel; schema: string; env: Env; logger: Logger }): Promise<{
  store: EntityStore;
  description: string;
  /** every version the store holds (a range test's snapshot) */
  versions(): Promise<StoredVersion[]>;
  close(): Promise<void>;
}> {
  const db = await createDb({
    env: o.env,
    dataDir: 'memory://',
    ssl: { ca: o.options.pgCa, cert: o.options.pgCert, key: o.options.pgKey },
    applicationName: 'idx-node test',
    writerLock: { schema: o.schema, program: 'idx-node test' },
  });
  const close = async () => {
    try {
      await dropProjectSchema(db.kysely, o.schema);
    } finally {
      await db.close();
    }
  };
  try {
    // a schema left by a test run that was killed goes first
    await dropProjectSchema(db.kysely, o.schema);
    const options: NodeOptions = { ...o.options, allowSchemaMigration: true };
    const store = await prepareProjectStore(db, { model: o.model, schema: o.schema, historical: !o.options.disableHistorical, options, logger: o.logger });
    const historical = !o.options.disableHistorical;
    return { store, description: db.description, versions: () => readEntityVersions(db.kysely, { schema: o.schema, model: o.model, historical }), close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}
