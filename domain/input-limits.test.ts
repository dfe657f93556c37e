import t from 'tap';
import { ValidationError } from './errors.ts';
import { bracketDepth, checkTextSize, checkValueDepth, valueDepth } from './input-limits.ts';

t.test('bracketDepth counts brackets outside strings and comments, without recursing', async (t) => {
  t.equal(bracketDepth('{"a": [1, {"b": (2)}]}'), 4);
  t.equal(bracketDepth('{"a": "[[[[[[", "b": "\\"[[["}'), 1, 'brackets in strings, escaped quotes too');
  t.equal(bracketDepth('type A { x: [[String]] } # [[[[[[[[\n'), 3, 'a GraphQL comment');
  t.equal(bracketDepth('"""a [[[[ \\""" [[[ """ type A { id: ID! }'), 1, 'a GraphQL block string, with an escaped """');
  t.equal(bracketDepth('['.repeat(1_000_000)), 101, 'stops counting past the limit');
  t.equal(bracketDepth(']]]][['), 2, 'stray closing brackets do not go below zero');
});

t.test('valueDepth walks values without recursing, and finds a value that contains itself', async (t) => {
  t.equal(valueDepth(5), 0);
  t.equal(valueDepth({ a: [1, { b: [] }] }), 4);
  const shared = { deep: [[[1]]] };
  t.equal(valueDepth({ x: shared, y: [shared] }), 6, 'an object reached twice counts where it is deepest');
  t.equal(valueDepth(new Map([['k', new Set([[1]])]])), 3, "Maps and Sets (project.ts's assets)");
  const cyclic: unknown[] = [];
  cyclic.push({ again: cyclic });
  t.equal(valueDepth(cyclic), Infinity);
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  t.equal(valueDepth(deep), 101, 'stops past the limit');
  // a wide DAG (each level twice the one below, by reference) is walked once per object
  let dag: unknown = 1;
  for (let i = 0; i < 60; i++) dag = [dag, dag];
  t.equal(valueDepth(dag), 60);
});

t.test('the checks refuse with the file named, as a validation error', async (t) => {
  t.throws(() => checkValueDepth(JSON.parse(`${'['.repeat(200)}${']'.repeat(200)}`), '/p/abis/x.json'), {
    constructor: ValidationError,
    message: /^\/p\/abis\/x\.json is invalid:\n {2}- x\.json: nested more than 100 levels deep/,
  });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.throws(() => checkValueDepth(cyclic, 'project.ts'), { message: /a value contains itself/ });
  t.throws(() => checkTextSize('é'.repeat(600), 'x.yaml', 1000), { message: /x\.yaml: the file has 1200 bytes; idx reads at most 1000 bytes/ });
  t.doesNotThrow(() => checkTextSize('é'.repeat(500), 'x.yaml', 1000));
});
