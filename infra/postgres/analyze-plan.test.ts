import t from 'tap';
import { nextAnalysisAt, planAnalyses, type AnalyzedTable } from './analyze-plan.ts';

const table = (changed: number, analyzedRows: number, notBefore = 0): AnalyzedTable => ({ changed, analyzedRows, notBefore });

t.test('due once 50 rows plus 10% of the table changed, as autovacuum', async (t) => {
  const tables = new Map([
    ['small', table(49, 0)],
    ['fresh', table(50, 0)],
    ['grown', table(449, 4000)],
    ['grown enough', table(450, 4000)],
  ]);
  t.same(planAnalyses(tables, 1000), { now: ['fresh', 'grown enough'] });
});

t.test('a table due before its time share is spent waits: the plan says when to look again', async (t) => {
  const tables = new Map([
    ['later', table(5000, 1000, 9000)],
    ['sooner', table(5000, 1000, 3000)],
    ['not due', table(10, 1000, 2000)],
    ['allowed', table(5000, 1000, 1000)],
  ]);
  t.same(planAnalyses(tables, 1000), { now: ['allowed'], wakeAt: 3000 });
  t.same(planAnalyses(tables, 3000), { now: ['sooner', 'allowed'], wakeAt: 9000 });
  t.same(planAnalyses(tables, 9000), { now: ['later', 'sooner', 'allowed'] });
});

t.test('an analysis that took d ms allows the next after d / share ms (5% by default)', async (t) => {
  t.equal(nextAnalysisAt(10_000, 440), 10_000 + 8_800);
  t.equal(nextAnalysisAt(10_000, 440, 0.5), 10_880);
  t.equal(nextAnalysisAt(10_000, 440, Infinity), 10_000, 'no limit');
});
