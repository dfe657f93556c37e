import { getIntrospectionQuery, GraphQLError } from 'graphql';
import t from 'tap';
import { checkSelections, checkVariables, jsonSizeOver, parseBounded, REQUEST_LIMITS, textDepth } from './request-limits.ts';

/** the refusal of a query text, or undefined when it passes every bound */
function refusal(query: string): { code: unknown; message: string } | undefined {
  const doc = parseBounded(query);
  const err = doc instanceof GraphQLError ? doc : checkSelections(doc);
  return err && { code: err.extensions.code ?? 'GRAPHQL_PARSE_FAILED', message: err.message };
}

t.test('the introspection queries of GraphiQL and other tools pass', async (t) => {
  t.equal(refusal(getIntrospectionQuery()), undefined, 'the standard query');
  t.equal(
    refusal(
      getIntrospectionQuery({
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
        oneOf: true,
      }),
    ),
    undefined,
    'with every option (GraphiQL 3)',
  );
  t.equal(refusal('{ a: __type(name: "Transfer") { fields { name args { name type { name ofType { name } } } } } __typename }'), undefined, 'a __type lookup');
  t.equal(refusal('{ __schema { directives { args { type { fields { args { name } } } } } } }'), undefined, 'one member list under other lists');
});

t.test('introspection and aliases are bounded', async (t) => {
  t.match(
    refusal('{ a: __schema { types { name } } b: __schema { types { name } } }'),
    { code: 'QUERY_TOO_LARGE', message: /__schema at most 1/ },
    'two __schema',
  );
  const types = Array.from({ length: 11 }, (_v, i) => `t${i}: __type(name: "Query") { name }`).join(' ');
  t.match(refusal(`{ ${types} }`), { code: 'QUERY_TOO_LARGE', message: /__type at most 10 times/ });
  t.match(
    refusal('{ __schema { types { fields { type { fields { name } } } } } }'),
    { code: 'QUERY_TOO_LARGE', message: /nests the member lists/ },
    'lists nested through a field type',
  );
  t.match(
    refusal('fragment F on __Type { fields { type { ...G } } } fragment G on __Type { fields { name } } { __type(name: "Query") { ...F } }'),
    { code: 'QUERY_TOO_LARGE', message: /nests the member lists/ },
    'through fragments too',
  );
  const aliases = Array.from({ length: REQUEST_LIMITS.maxSelections + 1 }, (_v, i) => `a${i}: __typename`).join(' ');
  t.match(refusal(`{ ${aliases} }`), { code: 'QUERY_TOO_LARGE', message: /more than 2000 fields/ });
  // each fragment spreads the next twice: 2^30 fields once expanded, refused after counting 2,001
  const bomb = Array.from({ length: 30 }, (_v, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join('\n');
  const started = performance.now();
  t.match(refusal(`{ ...F0 }\n${bomb}\nfragment F30 on Query { __typename }`), { code: 'QUERY_TOO_LARGE' }, 'a fragment bomb');
  t.ok(performance.now() - started < 500, 'refused without expanding it');
  t.match(
    refusal(`{ ${'a: __typename '.repeat(30_000)} }`),
    { code: 'QUERY_TOO_LARGE', message: /more than 20000 tokens/ },
    'parsing stops at the token bound',
  );
});

t.test('nesting is bounded before anything recurses', async (t) => {
  t.equal(textDepth('{ a(f: {x: "{{{{[[[(((", y: """ {{{ """}) # {{{{\n { b } }'), 3, 'strings and comments do not count');
  for (const deep of [
    `{ ${'a { '.repeat(5000)}b${' }'.repeat(5000)} }`,
    `{ a(f: ${'{and: ['.repeat(5000)}{}${']}'.repeat(5000)}) { id } }`,
    `{ a(x: ${'['.repeat(100_000)}) }`,
  ]) {
    t.match(refusal(deep), { code: 'QUERY_TOO_DEEP', message: /nested more than 64 levels/ });
  }
  let nested: unknown = {};
  for (let i = 0; i < 100_000; i++) nested = { and: [nested] };
  t.match(checkVariables({ f: nested }), { extensions: { code: 'QUERY_TOO_DEEP' }, message: /the variables are nested more than 64/ });
  t.equal(checkVariables({ f: { and: [{ or: [{ id: { in: ['a', 'b'] } }] }] } }), undefined);
});

t.test('answer sizes are measured without building them', async (t) => {
  const page = { data: { transfers: { nodes: Array.from({ length: 100 }, (_v, i) => ({ id: `t${i}`, value: '1'.repeat(100) })) } } };
  const size = JSON.stringify(page).length;
  t.notOk(jsonSizeOver(page, size), 'at its size');
  t.ok(jsonSizeOver(page, size * 0.9), 'over a smaller bound');
  t.ok(jsonSizeOver({ data: { a: 'x'.repeat(REQUEST_LIMITS.maxResponseBytes) } }, REQUEST_LIMITS.maxResponseBytes));
});
