import t from 'tap';
import { snapshotFileText } from './snapshot-file-text.ts';

t.test('tests by name, a line per field, ranges and tagged values on one line', async (t) => {
  const text = snapshotFileText({
    'z test': { from: 1, to: 2, rows: [] },
    'a test': {
      from: 3,
      to: 4,
      rows: [
        { entity: 'Account', id: 'x', blockRange: [3, null], fields: { balance: { $bigint: '5' }, tags: ['a', 'b'], meta: { k: 1, l: [{ $bigint: '1' }] } } },
      ],
    },
  });
  t.equal(
    text,
    `{
  "a test": {
    "from": 3,
    "to": 4,
    "rows": [
      {
        "entity": "Account",
        "id": "x",
        "blockRange": [3, null],
        "fields": {
          "balance": {"$bigint": "5"},
          "tags": ["a", "b"],
          "meta": {
            "k": 1,
            "l": [
              {"$bigint": "1"}
            ]
          }
        }
      }
    ]
  },
  "z test": {
    "from": 1,
    "to": 2,
    "rows": []
  }
}
`,
  );
});

t.test('what it writes reads back as the same value', async (t) => {
  const value = {
    r: { from: 1, to: 2, rows: [{ entity: 'A', id: 'q"\n', blockRange: null, fields: { s: 'line\nbreak', e: {}, n: [], o: { $object: { $x: 1 } } } }] },
  };
  t.same(JSON.parse(snapshotFileText(value)), value);
});
