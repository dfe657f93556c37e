/**
 * The shape of a block handler's `timestamp` filter: a cron expression of 5 fields
 * (minute hour day-of-month month day-of-week), or 6 with seconds first.
 * Only the shape and ranges are checked here; the node evaluates it.
 */

interface CronField {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const SECOND: CronField = { name: 'second', min: 0, max: 59 };
const FIVE_FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  // 0 and 7 are both Sunday
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

/** Why `expr` is not a cron expression, or undefined when it is one. */
export function cronExpressionProblem(expr: string): string | undefined {
  const parts = expr
    .trim()
    .split(/\s+/)
    .filter((p) => p !== '');
  if (parts.length !== 5 && parts.length !== 6) {
    return `expected a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got ${parts.length} field${parts.length === 1 ? '' : 's'}`;
  }
  const fields = parts.length === 6 ? [SECOND, ...FIVE_FIELDS] : FIVE_FIELDS;
  for (let i = 0; i < parts.length; i++) {
    const problem = fieldProblem(parts[i]!, fields[i]!);
    if (problem !== undefined) return `cron field ${i + 1} (${fields[i]!.name}) "${parts[i]}": ${problem}`;
  }
  return undefined;
}

function fieldProblem(text: string, field: CronField): string | undefined {
  for (const item of text.split(',')) {
    const m = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/([0-9]+))?$/.exec(item);
    if (!m) return `expected *, a value, a range a-b, a step like */5, or a list of those`;
    if (m[2] !== undefined && Number(m[2]) < 1) return 'a step must be at least 1';
    if (m[1] === '*') continue;
    const [from, to] = m[1]!.split('-');
    const a = fieldValue(from!, field);
    const b = to === undefined ? a : fieldValue(to, field);
    if (a === undefined || b === undefined) {
      const names = field.names ? ` or ${field.names[0]}-${field.names[field.names.length - 1]}` : '';
      return `values must be ${field.min}-${field.max}${names}`;
    }
    if (a > b) return `range ${m[1]} runs backwards`;
  }
  return undefined;
}

function fieldValue(text: string, field: CronField): number | undefined {
  if (/^[0-9]+$/.test(text)) {
    const n = Number(text);
    return n >= field.min && n <= field.max ? n : undefined;
  }
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index < 0) return undefined;
  return field.name === 'month' ? index + 1 : index;
}
