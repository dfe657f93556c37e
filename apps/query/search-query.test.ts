import pgTsquery from 'pg-tsquery';
import t from 'tap';
import { HUGE_SEARCHES } from '../../test/support/hostile-searches.ts';
import { SEARCH_LIMITS, searchTsquery } from './search-query.ts';

t.test('search strings read as SubQuery reads them', async (t) => {
  const cases: [string, string][] = [
    ['quick foxes', 'quick&foxes'],
    ['fox or lazy', 'fox|lazy'],
    ['fox, lazy', 'fox|lazy'],
    ['dog -chain', 'dog&!chain'],
    ['dog & !chain', 'dog&!chain'],
    ['jump*', 'jump:*'],
    ['"quick fox"', '"quick<->fox"'],
    ['(fox | dog) lazy', '(fox|dog)&lazy'],
    ['fox &', 'fox'],
    ['   ', ''],
  ];
  for (const [search, tsquery] of cases) t.equal(searchTsquery(search), tsquery, search);
});

/** a small deterministic generator */
function random(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor((x / 2147483648) * n);
  };
}

t.test("the same tsquery as pg-tsquery (SubQuery's parser) for any string within the limits", async (t) => {
  const reference = new pgTsquery.Tsquery();
  // every character its patterns treat apart, words, and its keywords in both cases
  const pieces = ['a', 'fox', 'x-y', "'", '"', '(', ')', '[', ']', '!', '-', '&', '|', ',', ':', '*', ':*', '<', '>', '<->', '+'];
  const more = [' ', ' ', '\t', '\n', '\u00a0', 'or', 'OR', 'and', 'And', 'orange', 'é'];
  const all = [...pieces, ...more];
  const rnd = random(11);
  let compared = 0;
  const differ: string[] = [];
  for (let i = 0; i < 30_000; i++) {
    let s = '';
    for (let n = rnd(30); n > 0; n--) s += all[rnd(all.length)];
    const want = `${reference.parse(s) ?? ''}`;
    const got = searchTsquery(s);
    compared++;
    if (got !== want && differ.push(`${JSON.stringify(s)}: ${JSON.stringify(got)}, pg-tsquery ${JSON.stringify(want)}`) >= 10) break;
  }
  t.same(differ, [], `${compared} random strings`);
});

t.test('a search past its limits is refused naming the limit; pathological ones within them read at once', async (t) => {
  const refused = (search: string, limit: number, message: RegExp, what: string) => {
    let error: unknown;
    const started = performance.now();
    try {
      searchTsquery(search);
    } catch (err) {
      error = err;
    }
    const took = performance.now() - started;
    t.match(error, { extensions: { code: 'BAD_USER_INPUT', limit }, message }, what);
    return took;
  };
  const { maxChars, maxTerms, maxNesting } = SEARCH_LIMITS;
  t.equal(searchTsquery(`${'a'.repeat(maxChars - 2)} b`), `${'a'.repeat(maxChars - 2)}&b`, `${maxChars} characters: read`);
  refused('a'.repeat(maxChars + 1), maxChars, /search: 1001 characters is more than the 1000 a search may have/, 'one character more');
  t.equal(searchTsquery('w '.repeat(maxTerms)).split('&').length, maxTerms, `${maxTerms} words: read`);
  refused('w '.repeat(maxTerms + 1), maxTerms, /search: more than 64 words/, 'one word more');
  refused(`"${'w '.repeat(maxTerms)}w"`, maxTerms, /each word of a quoted phrase counts/, 'a phrase of one word more');
  t.equal(searchTsquery(`${'('.repeat(maxNesting)}a${')'.repeat(maxNesting)}`), 'a', `${maxNesting} parentheses deep: read`);
  refused(`${'('.repeat(maxNesting + 1)}a`, maxNesting, /search: parentheses nested more than 16 deep/, 'one level more');

  // the strings that took idx-query's event loop (26 s, 83 s) or overflowed its stack: refused at once
  let slowest = 0;
  for (const [what, search] of HUGE_SEARCHES) slowest = Math.max(slowest, refused(search, maxChars, /characters is more than the 1000/, what));
  t.ok(slowest < 250, `huge strings refused in ${slowest.toFixed(1)} ms at most`);

  // pg-tsquery's worst cases at the length limit: each operator run retried character by character
  // (cubic: "a)" + 998 "&" took 0.65 s), each word or parenthesis one more call deep
  const started = performance.now();
  const n = maxChars;
  for (const search of [
    `a)${'&'.repeat(n - 2)}`,
    `a)${':'.repeat(n - 2)}`,
    `a)${' '.repeat(n - 2)}`,
    `a)${'!'.repeat(n - 2)}`,
    `a)${'-!'.repeat(n / 2 - 1)}`,
    `a)${' &'.repeat(n / 2 - 1)}`,
    `a)${'<'.repeat(n - 2)}`,
    `a${'>'.repeat(n - 1)}`,
    `a${')'.repeat(n - 1)}`,
    `a)${'('.repeat(maxNesting)}${'&'.repeat(n - 2 - maxNesting)}`,
    `${'"'.repeat(n)}`.replace(/"/g, (q, i: number) => (i % 40 === 0 ? q : '&')),
    `a ${'or '.repeat((n - 2) / 3)}`,
  ]) {
    try {
      searchTsquery(search);
    } catch (err) {
      t.match(err, { extensions: { code: 'BAD_USER_INPUT' } }, 'a refusal is the user input error');
    }
  }
  const took = performance.now() - started;
  t.ok(took < 500, `12 pathological strings of ${n} characters read in ${took.toFixed(1)} ms`);
});
