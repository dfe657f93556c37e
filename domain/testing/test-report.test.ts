import t from 'tap';
import { checkLine, failureDetails, shownValue, testLine, totals } from './test-report.ts';
import type { TestOutcome } from './test-outcome.ts';

const passing: TestOutcome = { name: 'handleTransfer test', checks: [{ entity: 'Transfer', id: 't1', differences: [] }] };
const failing: TestOutcome = {
  name: 'wrong value',
  checks: [
    { entity: 'Transfer', id: 't1', differences: [{ field: 'value', expected: 11n, actual: 10n }] },
    { entity: 'Account', id: 'a1', differences: 'missing' },
  ],
};
const crashed: TestOutcome = { name: 'throws', error: { kind: 'runtime', message: 'Error: boom\n    at handleLog' }, expectedCount: 2 };

t.test('per check and per test lines, worded as SubQuery', async (t) => {
  t.equal(checkLine({ entity: 'Transfer', id: 't1', differences: [] }), 'Entity check PASSED (Entity ID: t1)');
  t.equal(checkLine({ entity: 'Transfer', id: 't1', differences: 'missing' }), 'Entity check FAILED (Entity ID: t1)');
  t.equal(testLine(passing), 'Test: handleTransfer test completed with 1 passed and 0 failed checks');
  t.equal(testLine(failing), 'Test: wrong value completed with 0 passed and 2 failed checks');
  t.equal(testLine(crashed), 'Test throws failed to run: Error: boom');
});

t.test('failure details name test, entity, field, expected and actual', async (t) => {
  t.same(failureDetails([passing, failing, crashed]), [
    '\n* wrong value\n\tEntity Transfer: t1\n\t\tattribute: "value":\n\t\t\texpected: "11"\n\t\t\tactual:   "10"\n',
    '\n* wrong value\n\tEntity Account: a1\n\t\tExpected entity was not found',
    '\n* throws\nRuntime Error:\nError: boom\n    at handleLog',
  ]);
});

t.test('totals count tests', async (t) => {
  t.same(totals([passing, failing, crashed]), { total: 3, passing: 1, failing: 2 });
});

t.test('values are shown readably', async (t) => {
  t.equal(shownValue(new Date('2024-01-02T03:04:05.678Z')), '2024-01-02T03:04:05.678Z');
  t.equal(shownValue(new Uint8Array([0, 255])), '0x00ff');
  t.equal(shownValue({ a: 1n }), '{"a":"1"}');
  t.equal(shownValue(null), 'null');
});

t.test('a range test: its snapshot counts as a check, and a failed one is in the summary', async (t) => {
  const differs: TestOutcome = {
    name: 'range',
    checks: [{ entity: 'Account', id: 'a', differences: [] }],
    snapshot: {
      file: 's.snap.json',
      rows: 3,
      status: 'differs',
      differences: [{ kind: 'field', entity: 'Account', id: 'a', since: 1, field: 'balance', snapshot: 1, actual: 2 }],
    },
  };
  const written: TestOutcome = { name: 'written', checks: [], snapshot: { file: 's.snap.json', rows: 3, status: 'written', differences: [] } };
  t.equal(testLine(differs), 'Test: range completed with 1 passed and 1 failed checks');
  t.equal(testLine(written), 'Test: written completed with 1 passed and 0 failed checks');
  t.same(totals([differs, written]), { total: 2, passing: 1, failing: 1 });
  const details = failureDetails([differs, written]);
  t.equal(details.length, 1);
  t.match(details[0], /^\n\* range\n\tSnapshot s\.snap\.json: 1 difference\n\t\tAccount a, version from block 1: "balance"/);
  t.same(failureDetails([{ name: 'bad', error: { kind: 'snapshot', message: 'x.snap.json is not valid JSON' }, expectedCount: 1 }]), [
    '\n* bad\nSnapshot Error:\nx.snap.json is not valid JSON',
  ]);
});
