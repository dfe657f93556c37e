import { describeChange, type SchemaChange } from '../entities/schema-diff.ts';
import type { DeploymentRecord, HandlerBinding } from './deployment-record.ts';
import type { DynamicDataSourceRecord } from './dynamic-data-sources.ts';

/**
 * The rules under which a change between the deployment a schema was indexed with and the
 * project's current one applies in place: the tables after it equal what a fresh index of the new
 * version would hold, row for row and version for version (docs/deploy.md, "Changes applied in place").
 */
export const ADDITIVE_RULES = {
  'new-entity': 'a new entity: no handler that ran could write it, its table starts empty',
  'new-nullable-field': 'a new nullable field and no handler that ran changed: the old code never sets it, so every row a fresh index writes has it null too',
  'index-only': 'an index (or @fullText) added, changed or removed: the rows stay as they are',
  'new-enum': 'a new enum: no stored value uses it',
  'new-enum-values': 'new enum values: every stored value is still one of the enum',
  'model-only': 'a @jsonField type or a @derivedFrom field: nothing stored changes',
  'handler-ahead': 'a new handler whose data source starts above the indexed height: no block it runs on was indexed',
  'handler-not-run': 'a changed handler that has not run yet (its data source starts above the indexed height, or no data source was made from its template)',
  'removed-before-run': 'a removed handler that never ran: it wrote nothing',
} as const;

export type AdditiveRule = keyof typeof ADDITIVE_RULES;

export interface RedeployVerdict {
  /** applied in place, each with the rule that allows it */
  additive: { what: string; rule: AdditiveRule }[];
  /** what a fresh index would write differently, each with why */
  reindex: { what: string; why: string; handler?: string; from?: number }[];
}

export interface RedeployInput {
  schemaChanges: readonly SchemaChange[];
  /** the record of the last start; undefined when the schema was indexed by an idx that kept none */
  before: DeploymentRecord | undefined;
  /** the version being started; undefined when only schema.graphql is compared (`reindex` runs no handler) */
  after?: DeploymentRecord;
  /** `_metadata.lastProcessedHeight`; undefined when no block was indexed */
  indexedHeight: number | undefined;
  /** `_metadata.dynamicDatasources`: where each template's handlers started running */
  dynamic: readonly DynamicDataSourceRecord[];
}

/** Sorts every change between two versions of a project into applied in place (with its rule) or needing a reindex (with why). */
export function classifyRedeploy(input: RedeployInput): RedeployVerdict {
  const verdict: RedeployVerdict = { additive: [], reindex: [] };
  const codeKnown = input.before !== undefined;
  for (const change of input.schemaChanges) classifySchemaChange(change, codeKnown, verdict);
  if (input.before !== undefined && input.after !== undefined) classifyHandlers(input.before, input.after, input, verdict);
  return verdict;
}

function classifySchemaChange(change: SchemaChange, codeKnown: boolean, verdict: RedeployVerdict): void {
  const what = describeChange(change);
  const additive = (rule: AdditiveRule) => void verdict.additive.push({ what, rule });
  const reindex = (why: string) => void verdict.reindex.push({ what, why });
  switch (change.kind) {
    case 'add-entity':
      return additive('new-entity');
    case 'add-field':
      if (change.field.nullable && codeKnown) return additive('new-nullable-field');
      return reindex(
        change.field.nullable
          ? 'this schema keeps no record of the handlers it was indexed with (indexed by an earlier idx): nothing shows that no handler that ran sets the field'
          : 'a required field: the rows already indexed have no value for it',
      );
    case 'add-index':
    case 'drop-index':
    case 'full-text':
      return additive('index-only');
    case 'add-enum':
      return additive('new-enum');
    case 'add-enum-values':
      return additive('new-enum-values');
    case 'model-only':
      return additive('model-only');
    case 'alter-field':
      return reindex('the rows already indexed hold values of the old type or nullability');
    case 'drop-field':
    case 'drop-entity':
      return reindex('stored data would be dropped, and the handlers that wrote it ran with it');
    case 'drop-enum':
    case 'drop-enum-values':
      return reindex('rows already indexed may hold the removed values');
  }
}

function classifyHandlers(before: DeploymentRecord, after: DeploymentRecord, input: RedeployInput, verdict: RedeployVerdict): void {
  const old = new Map(before.handlers.map((h) => [h.key, h]));
  const now = new Map(after.handlers.map((h) => [h.key, h]));
  const ran = (h: HandlerBinding) => firstRun(h, input.dynamic, input.indexedHeight);
  for (const h of after.handlers) {
    const was = old.get(h.key);
    const from = ran(h);
    if (was === undefined) {
      if (from === undefined)
        verdict.additive.push({ what: `added handler ${h.handler} of ${h.source}${startText(h)}`, rule: h.template ? 'handler-not-run' : 'handler-ahead' });
      else
        verdict.reindex.push({
          what: `added handler ${h.handler} of ${h.source}${startText(h)}`,
          why: `blocks ${from}–${input.indexedHeight} were indexed without it`,
          handler: h.handler,
          from,
        });
    } else if (was.code !== h.code) {
      if (from === undefined) verdict.additive.push({ what: `handler ${h.handler} of ${h.source}: code changed`, rule: 'handler-not-run' });
      else
        verdict.reindex.push({
          what: `handler ${h.handler} of ${h.source}: code changed`,
          why: `the rows it wrote for blocks ${from}–${input.indexedHeight} came from the old code`,
          handler: h.handler,
          from,
        });
    }
  }
  for (const h of before.handlers) {
    if (now.has(h.key)) continue;
    const from = ran(h);
    if (from === undefined) verdict.additive.push({ what: `removed handler ${h.handler} of ${h.source}`, rule: 'removed-before-run' });
    else
      verdict.reindex.push({
        what: `removed handler ${h.handler} of ${h.source}${startText(h)}`,
        why: `the rows it wrote for blocks ${from}–${input.indexedHeight} stay`,
        handler: h.handler,
        from,
      });
  }
}

const startText = (h: HandlerBinding) => (h.startBlock !== undefined ? ` (from block ${h.startBlock})` : '');

/** The first indexed block the handler ran on, or undefined when it never ran. */
function firstRun(h: HandlerBinding, dynamic: readonly DynamicDataSourceRecord[], indexedHeight: number | undefined): number | undefined {
  if (indexedHeight === undefined) return undefined;
  const start = h.template !== undefined ? Math.min(...dynamic.filter((d) => d.templateName === h.template).map((d) => d.startBlock)) : h.startBlock!;
  return Number.isFinite(start) && start <= indexedHeight ? start : undefined;
}
