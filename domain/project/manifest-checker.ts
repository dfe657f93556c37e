import type { Problem } from '../errors.ts';
import type { BlockFilter } from './project-model.ts';
import { cronExpressionProblem } from './cron-expression.ts';

/**
 * What checking a manifest is made of: the checker that collects problems with their field paths,
 * and the field checks the manifest's parts (validate-manifest.ts) and the families' rules
 * (domain/chains/<family>/manifest-rules.ts) share.
 */

/** A field path as segments, e.g. `['dataSources', 0, 'startBlock']`. */
export type FieldPath = readonly (string | number)[];

/** Finds where a field sits in the source file, so problems can carry line/column. */
export type LocateField = (path: FieldPath) => { line: number; column: number } | undefined;

export interface Checker {
  problems: Problem[];
  report(path: FieldPath, message: string): void;
  /**
   * Runs a check of fields only the node reads. With `onNodeOnlyProblem`, its problems go there and
   * the result is undefined when there were any; without, they are problems like the rest.
   */
  nodeOnly<T>(check: () => T): T | undefined;
}

/** `dataSources[0].mapping.handlers[1].kind`; keys that are not identifiers are quoted: `endpoint["https://…"]`. */
export function formatFieldPath(path: FieldPath): string {
  if (path.length === 0) return 'manifest';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

export function createChecker(locate: LocateField | undefined, onNodeOnlyProblem: ((problem: Problem) => void) | undefined): Checker {
  const problems: Problem[] = [];
  let relaxing = 0;
  let relaxed = 0;
  return {
    problems,
    report(path, message) {
      const at = locate?.(path);
      const problem = at ? { path: formatFieldPath(path), message, line: at.line, column: at.column } : { path: formatFieldPath(path), message };
      if (relaxing > 0 && onNodeOnlyProblem !== undefined) {
        relaxed++;
        onNodeOnlyProblem(problem);
      } else problems.push(problem);
    },
    nodeOnly(check) {
      const before = relaxed;
      relaxing++;
      try {
        const out = check();
        return relaxed === before ? out : undefined;
      } finally {
        relaxing--;
      }
    },
  };
}

/** A 0x-prefixed 20-byte hex address (a contract's, an account's). */
export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
export const EXPECT_ADDRESS = 'expected a 0x-prefixed 20-byte hex address';

/** A block handler's `modulo` and `timestamp` (cron), as every family's block handlers take them. */
export function checkBlockFilter(c: Checker, path: FieldPath, f: Record<string, unknown>): BlockFilter {
  const out: BlockFilter = {};
  if (f.modulo !== undefined && f.modulo !== null) {
    if (isPositiveInteger(f.modulo)) out.modulo = f.modulo;
    else c.report([...path, 'modulo'], 'expected a positive integer');
  }
  if (f.timestamp !== undefined && f.timestamp !== null) {
    if (typeof f.timestamp !== 'string') c.report([...path, 'timestamp'], 'expected a cron expression string, e.g. "0 */1 * * *"');
    else {
      const problem = cronExpressionProblem(f.timestamp);
      if (problem === undefined) out.timestamp = f.timestamp;
      else c.report([...path, 'timestamp'], problem);
    }
  }
  return out;
}

export function checkList<T>(c: Checker, path: FieldPath, v: unknown, required: boolean, each: (path: FieldPath, item: unknown) => T | undefined): T[] {
  if (v === undefined || v === null) {
    if (required) c.report(path, 'required');
    return [];
  }
  if (!Array.isArray(v)) {
    c.report(path, 'expected a list');
    return [];
  }
  const out: T[] = [];
  v.forEach((item, i) => {
    const checked = each([...path, i], item);
    if (checked !== undefined) out.push(checked);
  });
  return out;
}

export function requiredRecord(c: Checker, path: FieldPath, v: unknown, expected: string): Record<string, unknown> | undefined {
  if (v === undefined || v === null) {
    c.report(path, 'required');
    return undefined;
  }
  const rec = asRecord(v);
  if (rec === undefined) c.report(path, expected);
  return rec;
}

export function requiredString(c: Checker, path: FieldPath, v: unknown): string | undefined {
  if (v === undefined || v === null) c.report(path, 'required');
  else if (typeof v !== 'string' || v.trim() === '') c.report(path, 'expected a non-empty string');
  else return v;
  return undefined;
}

export function optionalString(c: Checker, path: FieldPath, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  c.report(path, 'expected a string');
  return undefined;
}

/** A plain object, or a Map (project.ts writes `assets: new Map([...])`). */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, val]) => [String(k), val]));
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  return undefined;
}

export function isNonNegativeInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

export function isPositiveInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
}

export function definedOnly<T extends Record<string, unknown>>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}
