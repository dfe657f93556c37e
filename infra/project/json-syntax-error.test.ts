import t from 'tap';
import { findJsonSyntaxError } from './json-syntax-error.ts';

t.test('valid JSON has no error', async (t) => {
  for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"]} ', '"s"', '0']) {
    t.equal(findJsonSyntaxError(text), undefined, text);
  }
});

t.test('finds the first error and where it is', async (t) => {
  const cases: [string, number, string][] = [
    ['', 0, 'unexpected end of file, expected a value'],
    ['{"a": }', 6, 'unexpected "}", expected a value'],
    ['{"a": 1,}', 8, 'trailing comma before "}"'],
    ['[1, 2,]', 6, 'trailing comma before "]"'],
    ["{'a': 1}", 1, `unexpected "'", expected a property name in double quotes`],
    ['{"a" 1}', 5, 'unexpected "1", expected ":" after the property name'],
    ['{"a": 1 "b": 2}', 8, 'unexpected "\\"", expected "," or "}"'],
    ['[1 2]', 3, 'unexpected "2", expected "," or "]"'],
    ['{"a": "x', 6, 'unterminated string'],
    ['"a\nb"', 2, 'line break inside a string (write \\n)'],
    ['"\\x"', 1, 'invalid escape in a string'],
    ['"\\u12"', 1, 'invalid \\u escape in a string'],
    ['01', 1, 'invalid number'],
    ['{} {}', 3, 'unexpected "{" after the end of the JSON value'],
    ['tru', 0, 'unexpected "t", expected a value'],
  ];
  for (const [text, offset, message] of cases) t.same(findJsonSyntaxError(text), { offset, message }, JSON.stringify(text));
  // JSON.parse agrees these are errors
  for (const [text] of cases) t.throws(() => JSON.parse(text), JSON.stringify(text));
});
