import { plural, singular } from './postgraphile-plural.ts';

/**
 * The case and number functions SubQuery's query service derives every GraphQL name with from a
 * table or column name (`new_t_t_ls` → type `NewTTL`, connection `NewTtlsConnection`, group-by
 * `NewTTLsGroupBy`; column `price_e_t_h` → field `priceETH`, order `PRICE_E_T_H_ASC`): graphile-build's
 * `camelCase`/`upperCamelCase`/`constantCase` (lodash's word splitting inside leading and trailing
 * underscores) and `pluralize`/`singularize`, as the "simplify" inflector changes them (only the last
 * word is inflected; no capital S after a digit). Written after their sources, for ASCII names, which
 * are all a GraphQL schema or an idx table can hold.
 */

// lodash's words: which regex splits a string depends on whether it "has unicode words"
const HAS_UNICODE_WORD = /[a-z][A-Z]|[A-Z]{2}[a-z]|[0-9][a-zA-Z]|[a-zA-Z][0-9]|[^a-zA-Z0-9 ]/;
const ASCII_WORD = /[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/g;
// reUnicodeWord on ASCII: a break is anything but a letter or digit
const UNICODE_WORD = new RegExp(
  [
    '[A-Z]?[a-z]+(?=[^A-Za-z0-9]|[A-Z]|$)',
    '[A-Z]+(?=[^A-Za-z0-9]|[A-Z][a-z]|$)',
    '[A-Z]?[a-z]+',
    '[A-Z]+',
    '\\d*(?:1ST|2ND|3RD|(?![123])\\dTH)(?=\\b|[a-z_])',
    '\\d*(?:1st|2nd|3rd|(?![123])\\dth)(?=\\b|[A-Z_])',
    '\\d+',
  ].join('|'),
  'g',
);

function words(s: string): string[] {
  return s.match(HAS_UNICODE_WORD.test(s) ? UNICODE_WORD : ASCII_WORD) ?? [];
}

const upperFirstChar = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** lodash's camelCase: the words, lower case, each but the first capitalised */
function lodashCamelCase(s: string): string {
  return words(s).reduce((out, w, i) => {
    const lower = w.toLowerCase();
    return out + (i === 0 ? lower : upperFirstChar(lower));
  }, '');
}

/** graphile-build keeps leading and trailing underscores: `_foo_bar_` → `_fooBar_` */
function insideUnderscores(fn: (s: string) => string): (s: string) => string {
  return (s) => {
    const [, start, middle, end] = /^(_*)([\s\S]*?)(_*)$/.exec(s)!;
    return `${start}${fn(middle!)}${end}`;
  };
}

/** the simplify inflector's fix: `table1s` gives `table1s`, not `table1S` */
const noCapitalPluralS = (s: string) => s.replace(/[0-9]S(?=[A-Z]|$)/g, (m) => m.toLowerCase());

const baseCamelCase = insideUnderscores(lodashCamelCase);

export function camelCase(s: string): string {
  return noCapitalPluralS(baseCamelCase(s));
}

export function upperCamelCase(s: string): string {
  return noCapitalPluralS(insideUnderscores(upperFirstChar)(baseCamelCase(s)));
}

/** `price_e_t_h` → `PRICE_E_T_H`, `fooBar` → `FOO_BAR` */
export const constantCase = insideUnderscores((s) =>
  s
    .replace(/[^a-zA-Z0-9_]+/g, '_')
    .replace(/[A-Z]+/g, '_$&')
    .replace(/__+/g, '_')
    .replace(/^[^a-zA-Z0-9]+/, '')
    .replace(/^[0-9]/, '_$&')
    .toUpperCase(),
);

/** the simplify inflector inflects only the last word: `daily_pool_stats` → `daily_pool_stat`, `NewTTL` → `NewTTLS` */
function lastWord(fn: (w: string) => string): (s: string) => string {
  return (s) => {
    const m = /([A-Z]|_[a-z0-9])[a-z0-9]*_*$/.exec(s);
    const index = m ? m.index + m[1]!.length - 1 : 0;
    const suffixIndex = /_*$/.exec(s)!.index;
    return `${s.slice(0, index)}${fn(s.slice(index, suffixIndex))}${s.slice(suffixIndex)}`;
  };
}

export const pluralize = lastWord(plural);
export const singularize = lastWord(singular);

/** a plural unlike the singular, for list fields (`sheep` → `sheeps`) */
export function distinctPluralize(s: string): string {
  const one = singularize(s);
  const many = pluralize(one);
  if (one !== many) return many;
  if (/(ch|s|sh|x|z)$/.test(many)) return `${many}es`;
  if (many.endsWith('y')) return `${many.slice(0, -1)}ies`;
  return `${many}s`;
}
