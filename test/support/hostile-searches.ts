/**
 * Full-text search strings that took idx-query's event loop (SubQuery's reader: 26 s for the "&",
 * 83 s for the ":") or overflowed its stack, or PostgreSQL's (the phrase), before a search was
 * bounded to 1,000 characters and read in one pass (issue 27). Each fits in one request.
 */
export const HUGE_SEARCHES: readonly (readonly [what: string, search: string])[] = [
  ['"&" × 100,000', '&'.repeat(100_000)],
  ['":" × 200,000', ':'.repeat(200_000)],
  ['100,000 words', 'a '.repeat(100_000)],
  ['"(" × 250,000', '('.repeat(250_000)],
  ["'\"' × 400,000", '"'.repeat(400_000)],
  ['a phrase of 20,000 words', `"${'w '.repeat(20_000)}"`],
];
