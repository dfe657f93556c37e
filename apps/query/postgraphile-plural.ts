/**
 * English plurals and singulars as SubQuery's query service makes its GraphQL names with them:
 * `pluralize` 7.0.0 (MIT, Blake Embrey), which graphile-build uses. Its rules are kept here as data,
 * frozen, so that a GraphQL name never changes with a dependency (idx's own `pluralize` is 8, whose
 * rules and case handling differ: `analytics`, `whiskey`, `octopus`, words starting with a digit).
 * Rules are tried last to first; a word's case is carried over to its replacement.
 */

type Rule = readonly [RegExp, string];

const IRREGULAR: readonly [string, string][] = [
  ['I', 'we'],
  ['me', 'us'],
  ['he', 'they'],
  ['she', 'they'],
  ['them', 'them'],
  ['myself', 'ourselves'],
  ['yourself', 'yourselves'],
  ['itself', 'themselves'],
  ['herself', 'themselves'],
  ['himself', 'themselves'],
  ['themself', 'themselves'],
  ['is', 'are'],
  ['was', 'were'],
  ['has', 'have'],
  ['this', 'these'],
  ['that', 'those'],
  ['echo', 'echoes'],
  ['dingo', 'dingoes'],
  ['volcano', 'volcanoes'],
  ['tornado', 'tornadoes'],
  ['torpedo', 'torpedoes'],
  ['genus', 'genera'],
  ['viscus', 'viscera'],
  ['stigma', 'stigmata'],
  ['stoma', 'stomata'],
  ['dogma', 'dogmata'],
  ['lemma', 'lemmata'],
  ['schema', 'schemata'],
  ['anathema', 'anathemata'],
  ['ox', 'oxen'],
  ['axe', 'axes'],
  ['die', 'dice'],
  ['yes', 'yeses'],
  ['foot', 'feet'],
  ['eave', 'eaves'],
  ['goose', 'geese'],
  ['tooth', 'teeth'],
  ['quiz', 'quizzes'],
  ['human', 'humans'],
  ['proof', 'proofs'],
  ['carve', 'carves'],
  ['valve', 'valves'],
  ['looey', 'looies'],
  ['thief', 'thieves'],
  ['groove', 'grooves'],
  ['pickaxe', 'pickaxes'],
  ['whiskey', 'whiskies'],
];
const irregularSingles = new Map(IRREGULAR.map(([s, p]) => [s.toLowerCase(), p.toLowerCase()]));
const irregularPlurals = new Map(IRREGULAR.map(([s, p]) => [p.toLowerCase(), s.toLowerCase()]));

const UNCOUNTABLE_WORDS = new Set(
  (
    'adulthood advice agenda aid alcohol ammo anime athletics audio bison blood bream buffalo butter carp cash chassis chess ' +
    'clothing cod commerce cooperation corps debris diabetes digestion elk energy equipment excretion expertise flounder fun ' +
    'gallows garbage graffiti headquarters health herpes highjinks homework housework information jeans justice kudos labour ' +
    'literature machinery mackerel mail media mews moose music manga news pike plankton pliers pollution premises rain research ' +
    'rice salmon scissors series sewage shambles shrimp species staff swine tennis traffic transporation trout tuna wealth ' +
    'welfare whiting wildebeest wildlife you'
  ).split(' '),
);
const UNCOUNTABLE_PATTERNS: readonly RegExp[] = [/[^aeiou]ese$/i, /deer$/i, /fish$/i, /measles$/i, /o[iu]s$/i, /pox$/i, /sheep$/i];

const PLURAL_RULES: readonly Rule[] = [
  [/s?$/i, 's'],
  [/[^\u0000-\u007F]$/i, '$0'],
  [/([^aeiou]ese)$/i, '$1'],
  [/(ax|test)is$/i, '$1es'],
  [/(alias|[^aou]us|tlas|gas|ris)$/i, '$1es'],
  [/(e[mn]u)s?$/i, '$1s'],
  [/([^l]ias|[aeiou]las|[emjzr]as|[iu]am)$/i, '$1'],
  [/(alumn|syllab|octop|vir|radi|nucle|fung|cact|stimul|termin|bacill|foc|uter|loc|strat)(?:us|i)$/i, '$1i'],
  [/(alumn|alg|vertebr)(?:a|ae)$/i, '$1ae'],
  [/(seraph|cherub)(?:im)?$/i, '$1im'],
  [/(her|at|gr)o$/i, '$1oes'],
  [/(agend|addend|millenni|dat|extrem|bacteri|desiderat|strat|candelabr|errat|ov|symposi|curricul|automat|quor)(?:a|um)$/i, '$1a'],
  [/(apheli|hyperbat|periheli|asyndet|noumen|phenomen|criteri|organ|prolegomen|hedr|automat)(?:a|on)$/i, '$1a'],
  [/sis$/i, 'ses'],
  [/(?:(kni|wi|li)fe|(ar|l|ea|eo|oa|hoo)f)$/i, '$1$2ves'],
  [/([^aeiouy]|qu)y$/i, '$1ies'],
  [/([^ch][ieo][ln])ey$/i, '$1ies'],
  [/(x|ch|ss|sh|zz)$/i, '$1es'],
  [/(matr|cod|mur|sil|vert|ind|append)(?:ix|ex)$/i, '$1ices'],
  [/(m|l)(?:ice|ouse)$/i, '$1ice'],
  [/(pe)(?:rson|ople)$/i, '$1ople'],
  [/(child)(?:ren)?$/i, '$1ren'],
  [/eaux$/i, '$0'],
  [/m[ae]n$/i, 'men'],
  [/^thou$/i, 'you'],
  ...UNCOUNTABLE_PATTERNS.map((re): Rule => [re, '$0']),
];

const SINGULAR_RULES: readonly Rule[] = [
  [/s$/i, ''],
  [/(ss)$/i, '$1'],
  [/(wi|kni|(?:after|half|high|low|mid|non|night|[^\w]|^)li)ves$/i, '$1fe'],
  [/(ar|(?:wo|[ae])l|[eo][ao])ves$/i, '$1f'],
  [/ies$/i, 'y'],
  [/\b([pl]|zomb|(?:neck|cross)?t|coll|faer|food|gen|goon|group|lass|talk|goal|cut)ies$/i, '$1ie'],
  [/\b(mon|smil)ies$/i, '$1ey'],
  [/(m|l)ice$/i, '$1ouse'],
  [/(seraph|cherub)im$/i, '$1'],
  [/(x|ch|ss|sh|zz|tto|go|cho|alias|[^aou]us|tlas|gas|(?:her|at|gr)o|ris)(?:es)?$/i, '$1'],
  [/(analy|ba|diagno|parenthe|progno|synop|the|empha|cri)(?:sis|ses)$/i, '$1sis'],
  [/(movie|twelve|abuse|e[mn]u)s$/i, '$1'],
  [/(test)(?:is|es)$/i, '$1is'],
  [/(alumn|syllab|octop|vir|radi|nucle|fung|cact|stimul|termin|bacill|foc|uter|loc|strat)(?:us|i)$/i, '$1us'],
  [/(agend|addend|millenni|dat|extrem|bacteri|desiderat|strat|candelabr|errat|ov|symposi|curricul|quor)a$/i, '$1um'],
  [/(apheli|hyperbat|periheli|asyndet|noumen|phenomen|criteri|organ|prolegomen|hedr|automat)a$/i, '$1on'],
  [/(alumn|alg|vertebr)ae$/i, '$1a'],
  [/(cod|mur|sil|vert|ind)ices$/i, '$1ex'],
  [/(matr|append)ices$/i, '$1ix'],
  [/(pe)(rson|ople)$/i, '$1rson'],
  [/(child)ren$/i, '$1'],
  [/(eau)x?$/i, '$1'],
  [/men$/i, 'man'],
  ...UNCOUNTABLE_PATTERNS.map((re): Rule => [re, '$0']),
];

/** `token` in the case of `word`: UPPER, Title or lower. */
function restoreCase(word: string, token: string): string {
  if (word === token) return token;
  if (word === word.toUpperCase()) return token.toUpperCase();
  if (word[0] === word[0]!.toUpperCase()) return token.charAt(0).toUpperCase() + token.slice(1).toLowerCase();
  return token.toLowerCase();
}

function applyRule(word: string, [re, to]: Rule): string {
  return word.replace(re, (...args: unknown[]) => {
    const match = args[0] as string;
    // pluralize passes String.replace's second argument on as "index": a group when there is one, else the offset
    const index = args[1] as number;
    const result = to.replace(/\$(\d{1,2})/g, (_m, i: string) => (args[Number(i)] as string | undefined) || '');
    return match === '' ? restoreCase(word[index - 1]!, result) : restoreCase(match, result);
  });
}

function inflect(word: string, replace: Map<string, string>, keep: Map<string, string>, rules: readonly Rule[]): string {
  const token = word.toLowerCase();
  if (keep.has(token)) return restoreCase(word, token);
  const irregular = replace.get(token);
  if (irregular !== undefined) return restoreCase(word, irregular);
  if (token.length === 0 || UNCOUNTABLE_WORDS.has(token)) return word;
  for (let i = rules.length - 1; i >= 0; i--) if (rules[i]![0].test(word)) return applyRule(word, rules[i]!);
  return word;
}

export function plural(word: string): string {
  return inflect(word, irregularSingles, irregularPlurals, PLURAL_RULES);
}

export function singular(word: string): string {
  return inflect(word, irregularPlurals, irregularSingles, SINGULAR_RULES);
}
