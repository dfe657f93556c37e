import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../../domain/entities/entity-model.ts';
import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { DeploymentRecord } from '../../../domain/project/deployment-record.ts';
import { readAccessRecord, type HandlerAccessRecord } from '../../../domain/project/handler-access.ts';
import { checkReuseRun, planReuse, type ReusePlan } from '../../../domain/project/plan-reuse.ts';
import type { DataSource } from '../../../domain/project/project-model.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { copyVersions } from '../../../infra/postgres/copy-versions.ts';
import { metadataByKeys } from '../../../infra/postgres/read/metadata-reads.ts';
import { execute, qualified } from '../../../infra/postgres/sql.ts';

/**
 * `--reuse <schema>`, kept in the new schema's `_metadata.idxReuse` from the copy on, so that a
 * restart goes on where it stopped: the reused schema, the height its rows were copied up to,
 * the plan, the reused handlers' record, and whether the run up to that height was checked.
 */
export interface ReuseState {
  from: string;
  height: number;
  plan: ReusePlan;
  reusedAccess: HandlerAccessRecord;
  /** the entity types whose reused rows are in (copyReused) */
  copiedTypes: string[];
  /** the changed handlers' run up to `height` obeyed the plan (finishReuse) */
  checked: boolean;
}

export interface ReuseInput {
  /** where the reused schema is read and copied from */
  db: Kysely<any>;
  /** the new schema's store: its `_metadata` */
  store: MetadataStore;
  /** the schema reused, and the new one */
  from: string;
  to: string;
  model: SchemaModel;
  deployment: DeploymentRecord;
  genesisHash: string;
  /** the height the chain treats as final now: rows above it may still be rolled back */
  finalized: () => Promise<number>;
  log: Logger;
}

/** the new schema's `_metadata`, through its entity store */
type MetadataStore = Pick<EntityStore, 'getMetadata' | 'setMetadata'>;

/** `keys` of another schema's `_metadata`; none when it has no such table */
const metadataOf = async (db: Kysely<any>, schema: string, keys: readonly string[]): Promise<Record<string, unknown>> => {
  const [exists] = await execute<{ t: string | null }>(db, 'select to_regclass($1) as t', [qualified(schema, '_metadata')]);
  if (exists?.t === null || exists?.t === undefined) return {};
  const read = metadataByKeys(qualified(schema, '_metadata'), keys);
  const rows = await execute<{ key: string; value: unknown }>(db, read.text, read.values);
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
};

const refused = (from: string, problems: readonly string[]) =>
  new IdxError(
    'REUSE_REFUSED',
    `--reuse ${from}: a partial reindex would not give the rows a full one gives, because:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
      'Index without --reuse (a full reindex into the new schema), or keep the handlers that share entity types unchanged',
  );

/**
 * Before indexing into `to`: on its first start, plans the partial reindex (domain/project/plan-reuse.ts)
 * up to `from`'s last indexed height that is final, and records the plan; on a restart, the plan
 * recorded. The rows are copied by copyReused.
 */
export async function prepareReuse(input: ReuseInput): Promise<ReuseState> {
  const { db, from, to, log } = input;
  const mine = await input.store.getMetadata(['idxReuse', 'lastProcessedHeight']);
  if (mine.idxReuse !== undefined && mine.idxReuse !== null) {
    const state = mine.idxReuse as ReuseState;
    if (state.from !== from)
      throw new IdxError(
        'REUSE_REFUSED',
        `--reuse ${from}: schema "${to}" was filled from "${state.from}"; start it with --reuse ${state.from}, or force-clean it`,
      );
    return state;
  }
  if (typeof mine.lastProcessedHeight === 'number') {
    throw new IdxError(
      'REUSE_REFUSED',
      `--reuse ${from}: schema "${to}" already holds indexed blocks (to ${mine.lastProcessedHeight}); --reuse fills a new schema: give another --db-schema, or force-clean this one`,
    );
  }
  const theirs = await metadataOf(db, from, ['lastProcessedHeight', 'genesisHash', 'historicalStateEnabled', 'idxDeployment', 'idxHandlerAccess', 'schema']);
  if (typeof theirs.lastProcessedHeight !== 'number')
    throw new IdxError('REUSE_REFUSED', `--reuse ${from}: schema "${from}" holds no indexed project in this database`);
  if (theirs.genesisHash !== input.genesisHash)
    throw new IdxError(
      'REUSE_REFUSED',
      `--reuse ${from}: schema "${from}" indexed another chain (genesis ${String(theirs.genesisHash)}, this endpoint's is ${input.genesisHash})`,
    );
  if (theirs.historicalStateEnabled === false)
    throw new IdxError('REUSE_REFUSED', `--reuse ${from}: schema "${from}" was indexed with --disable-historical, so its rows cannot be taken by height`);
  if (theirs.schema === null || typeof theirs.schema !== 'object')
    throw new IdxError('REUSE_REFUSED', `--reuse ${from}: schema "${from}" has no record of its entity model (_metadata.schema)`);
  const access = readAccessRecord(theirs.idxHandlerAccess);
  const verdict = planReuse({
    before: (theirs.idxDeployment ?? undefined) as DeploymentRecord | undefined,
    after: input.deployment,
    access,
    beforeModel: theirs.schema as SchemaModel,
    afterModel: input.model,
  });
  if (!verdict.ok) throw refused(from, verdict.problems);
  const height = Math.min(theirs.lastProcessedHeight, await input.finalized());
  const { plan } = verdict;
  const reusedAccess: HandlerAccessRecord = {
    complete: true,
    handlers: Object.fromEntries(plan.reused.map((h) => [h, access!.handlers[h] ?? { reads: [], writes: [] }])),
  };
  const state: ReuseState = { from, height, plan, reusedAccess, copiedTypes: [], checked: false };
  // the record first: the changed handlers' runs add to it while the rows are copied
  await input.store.setMetadata({ idxReuse: state, idxHandlerAccess: reusedAccess });
  log.info(
    `--reuse ${from}: copying the rows of ${plan.reused.join(', ')} up to block ${height}, while ` +
      `${plan.run.map((h) => `${h} (${plan.because[h]})`).join(', ') || 'no handler'} run${plan.run.length === 1 ? 's' : ''} up to there; then every handler runs`,
    { event: 'reuse', from, height, run: plan.run, reused: plan.reused },
  );
  return state;
}

/** Refuses a start without --reuse of a schema whose partial reindex has not finished. */
export async function refuseUnfinishedReuse(store: MetadataStore, schema: string): Promise<void> {
  const state = (await store.getMetadata('idxReuse')) as ReuseState | null | undefined;
  if (state === undefined || state === null || state.checked) return;
  throw new IdxError(
    'REUSE_REFUSED',
    `schema "${schema}" is a partial reindex from "${state.from}" that has not finished (its rows up to block ${state.height} are not all there yet): ` +
      `start it again with --reuse ${state.from}, or force-clean it`,
  );
}

/** whether every entity type of the plan is copied */
export const reuseCopied = (state: ReuseState): boolean => state.plan.copy.every((e) => state.copiedTypes.includes(e));

/**
 * The reused handlers' entity types copied from the reused schema up to the height of the plan,
 * a table at a time beside each other, each in one transaction with the note that it was (so a
 * restart copies what is not, and only that). It runs beside the changed handlers' run: they
 * touch none of these tables.
 */
export async function copyReused(db: Kysely<any>, to: string, state: ReuseState, model: SchemaModel, log: Logger): Promise<void> {
  const started = Date.now();
  const left = state.plan.copy.filter((e) => !state.copiedTypes.includes(e));
  const counts = await Promise.all(
    left.map((name) =>
      db.transaction().execute(async (tx) => {
        const table = model.entities.find((e) => e.name === name)!.table;
        const copied = await copyVersions(tx, { from: state.from, to, tables: [table], height: state.height });
        // appended in the row as it is when this commits: two tables' notes never overwrite each other
        await execute(
          tx,
          `update ${qualified(to, '_metadata')} set value = jsonb_set(value, '{copiedTypes}', coalesce(value->'copiedTypes', '[]'::jsonb) || to_jsonb($1::text)) where key = 'idxReuse'`,
          [name],
        );
        state.copiedTypes.push(name);
        return `${table} ${copied[table]}`;
      }),
    ),
  );
  log.info(`--reuse ${state.from}: copied ${counts.join(', ') || 'no tables'} versions up to block ${state.height} in ${Date.now() - started} ms`, {
    event: 'reuse-copied',
    ms: Date.now() - started,
  });
}

/** The manifest's data sources with only the handlers a partial reindex runs; those left with none are dropped. */
export function sourcesRunning(dataSources: readonly DataSource[], run: readonly string[]): DataSource[] {
  return dataSources.flatMap((ds) => {
    const handlers = ds.mapping.handlers.filter((h) => run.includes(h.handler));
    return handlers.length === 0 ? [] : [{ ...ds, mapping: { ...ds.mapping, handlers } }];
  });
}

/**
 * Once the changed handlers have run up to the reused height: what they read and wrote as they ran,
 * checked by the rules of the plan (a changed handler may touch types its earlier version did not).
 * Refused, the new schema is left as it is, to be force-cleaned.
 */
export async function finishReuse(store: MetadataStore, to: string, state: ReuseState, ran: HandlerAccessRecord): Promise<void> {
  if (state.checked) return;
  if (!reuseCopied(state)) throw new Error(`--reuse ${state.from}: the run was checked before the rows were copied`);
  const problems = checkReuseRun(state.plan, state.reusedAccess, ran);
  if (problems.length > 0) {
    throw new IdxError(
      'REUSE_REFUSED',
      `--reuse ${state.from}: the new code reads or writes what the plan did not allow, so schema "${to}" does not hold what a full reindex would:\n` +
        `${problems.map((p) => `  - ${p}`).join('\n')}\nForce-clean it and index without --reuse`,
    );
  }
  // the changed handlers may have had no block to run on up to there: the next run starts after it all the same
  const last = await store.getMetadata('lastProcessedHeight');
  const reached = typeof last === 'number' && last >= state.height;
  await store.setMetadata({ idxReuse: { ...state, checked: true }, ...(!reached && { lastProcessedHeight: state.height }) });
}
