import t from 'tap';
import { cronExpressionProblem } from './cron-expression.ts';

t.test('accepts 5- and 6-field cron expressions', async (t) => {
  for (const expr of ['* * * * *', '*/5 * * * *', '0 0 1 1 *', '0 12 * JAN-MAR mon-fri', '0,30 8-18/2 * * 1-5', '30 0 */1 * * *', '0 0 0 31 DEC 7']) {
    t.equal(cronExpressionProblem(expr), undefined, expr);
  }
});

t.test('names the field that is wrong', async (t) => {
  t.equal(
    cronExpressionProblem('* * * *'),
    'expected a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got 4 fields',
  );
  t.equal(
    cronExpressionProblem(''),
    'expected a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got 0 fields',
  );
  t.equal(cronExpressionProblem('60 * * * *'), 'cron field 1 (minute) "60": values must be 0-59');
  t.equal(cronExpressionProblem('61 * * * * *'), 'cron field 1 (second) "61": values must be 0-59');
  t.equal(cronExpressionProblem('* * 0 * *'), 'cron field 3 (day of month) "0": values must be 1-31');
  t.equal(cronExpressionProblem('* * * FOO *'), 'cron field 4 (month) "FOO": values must be 1-12 or JAN-DEC');
  t.equal(cronExpressionProblem('* * * * 8'), 'cron field 5 (day of week) "8": values must be 0-7 or SUN-SAT');
  t.equal(cronExpressionProblem('*/0 * * * *'), 'cron field 1 (minute) "*/0": a step must be at least 1');
  t.equal(cronExpressionProblem('10-5 * * * *'), 'cron field 1 (minute) "10-5": range 10-5 runs backwards');
  t.equal(cronExpressionProblem('? * * * *'), 'cron field 1 (minute) "?": expected *, a value, a range a-b, a step like */5, or a list of those');
});
