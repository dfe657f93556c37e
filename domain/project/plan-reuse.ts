import type { EntityModel, SchemaModel } from '../entities/entity-model.ts';
import { stableJson, type DeploymentRecord } from './deployment-record.ts';
import type { HandlerAccess, HandlerAccessRecord } from './handler-access.ts';

/**
 * A partial reindex (`idx-node --reuse <schema>`): the new version runs only `run` (the handlers
 * whose code or binding changed, and those that read what they write), and the rows of `copy`
 * (the entity types only the other handlers write) come from the reused schema, by height.
 * Sound because a handler's output depends only on its inputs: the chain, and the entity types
 * it reads. An unchanged handler none of whose reads a changed one writes would write, run
 * again, the very rows it wrote before.
 */
export interface ReusePlan {
  /** the handlers (exported functions) the new version runs over the reused range */
  run: string[];
  /** the handlers whose rows are copied instead */
  reused: string[];
  /** the entity types copied, by name */
  copy: string[];
  /** why each handler of `run` runs: its own change, or what it reads */
  because: Record<string, string>;
}

export type ReuseVerdict = { ok: true; plan: ReusePlan } | { ok: false; problems: string[] };

export interface ReuseInput {
  /** what the reused schema was indexed with (`_metadata.idxDeployment`) */
  before: DeploymentRecord | undefined;
  after: DeploymentRecord;
  /** the reused schema's `_metadata.idxHandlerAccess` */
  access: HandlerAccessRecord | undefined;
  beforeModel: SchemaModel;
  afterModel: SchemaModel;
}

/** Which handlers must run and which entity types can be copied, or why no partial reindex is sound. */
export function planReuse(input: ReuseInput): ReuseVerdict {
  const { before, after, access } = input;
  if (before === undefined) return refuse('the reused schema has no record of the handlers it was indexed with (it was made by an earlier idx)');
  if (access === undefined)
    return refuse('the reused schema has no record of which entity types each handler reads and writes (it was made by an earlier idx)');
  if (!access.complete) {
    return refuse(
      "the reused schema's record of which entity types each handler reads and writes does not cover all of its rows (it was first indexed by an earlier idx, or restarted with --allow-schema-migration after a handler changed)",
    );
  }
  const templates = [...before.handlers, ...after.handlers].filter((h) => h.template !== undefined).map((h) => `template ${h.template}`);
  if (templates.length > 0)
    return refuse(`the project has templates (${[...new Set(templates)].join(', ')}): data sources made from them are not carried over by a partial reindex`);

  const names = [...new Set([...before.handlers, ...after.handlers].map((h) => h.handler))].sort();
  const bindings = (record: DeploymentRecord, name: string) =>
    record.handlers
      .filter((h) => h.handler === name)
      .map((h) => `${h.key}\n${h.code}`)
      .sort();
  const because: Record<string, string> = {};
  for (const name of names) {
    const was = bindings(before, name);
    const now = bindings(after, name);
    if (was.length === 0) because[name] = 'new';
    else if (now.length === 0) because[name] = 'removed';
    else if (was.join('\n\n') !== now.join('\n\n')) because[name] = 'its code or what calls it changed';
  }
  const of = (name: string): HandlerAccess => access.handlers[name] ?? { reads: [], writes: [] };
  // grow the set that runs until no handler left out reads what one that runs writes
  for (let grew = true; grew;) {
    grew = false;
    const written = writers(Object.keys(because), of);
    for (const name of names) {
      if (because[name] !== undefined) continue;
      const dependency = of(name).reads.find((e) => written.has(e));
      if (dependency === undefined) continue;
      because[name] = `it reads ${dependency}, which ${written.get(dependency)!.join(', ')} write${written.get(dependency)!.length === 1 ? 's' : ''}`;
      grew = true;
    }
  }
  const run = names.filter((n) => because[n] !== undefined && because[n] !== 'removed');
  const reused = names.filter((n) => because[n] === undefined);
  if (reused.length === 0) return refuse('every handler must run again, so a partial reindex would be a full one: index without --reuse');
  const problems = conflicts(Object.keys(because), reused, of);
  const copy = [...writers(reused, of).keys()].sort();
  for (const name of copy) {
    const was = entityOf(input.beforeModel, name);
    const now = entityOf(input.afterModel, name);
    if (was === undefined || now === undefined)
      problems.push(`${name}, written by ${reused.join(', ')}, is not an entity of ${was === undefined ? 'the reused' : 'the new'} schema`);
    else if (stableJson(was) !== stableJson(now)) problems.push(`${name}, whose rows would be copied, is defined differently in the new schema.graphql`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, plan: { run, reused, copy, because } };
}

/**
 * What a partial reindex's run showed of the new code (its handlers' reads and writes, recorded
 * as it ran): the rules of `planReuse` checked again, since a changed handler may now read or
 * write types its earlier version did not.
 */
export function checkReuseRun(plan: Pick<ReusePlan, 'run' | 'reused'>, reusedAccess: HandlerAccessRecord, ran: HandlerAccessRecord): string[] {
  const of = (name: string): HandlerAccess => (plan.run.includes(name) ? ran.handlers[name] : reusedAccess.handlers[name]) ?? { reads: [], writes: [] };
  const problems = conflicts(plan.run, plan.reused, of);
  const written = writers(plan.run, of);
  for (const name of plan.reused) {
    const dependency = of(name).reads.find((e) => written.has(e));
    if (dependency !== undefined)
      problems.push(
        `${name} (reused) reads ${dependency}, which ${written.get(dependency)!.join(', ')} now write${written.get(dependency)!.length === 1 ? 's' : ''}`,
      );
  }
  return problems;
}

/** a changed handler reading or writing a type an unchanged one writes: their rows would not interleave as a full run's */
function conflicts(changed: readonly string[], reused: readonly string[], of: (name: string) => HandlerAccess): string[] {
  const reusedWrites = writers(reused, of);
  const problems: string[] = [];
  for (const name of changed) {
    const { reads, writes } = of(name);
    for (const e of writes.filter((w) => reusedWrites.has(w)))
      problems.push(
        `${name} (changed) writes ${e}, which ${reusedWrites.get(e)!.join(', ')} (unchanged) write${reusedWrites.get(e)!.length === 1 ? 's' : ''} too`,
      );
    for (const e of reads.filter((r) => reusedWrites.has(r) && !writes.includes(r)))
      problems.push(`${name} (changed) reads ${e}, which ${reusedWrites.get(e)!.join(', ')} (unchanged) write${reusedWrites.get(e)!.length === 1 ? 's' : ''}`);
  }
  return problems;
}

/** each entity type written by the named handlers → those handlers */
function writers(names: readonly string[], of: (name: string) => HandlerAccess): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const name of names) for (const e of of(name).writes) out.set(e, [...(out.get(e) ?? []), name]);
  return out;
}

const entityOf = (model: SchemaModel, name: string): EntityModel | undefined => model.entities.find((e) => e.name === name);

const refuse = (problem: string): ReuseVerdict => ({ ok: false, problems: [problem] });
