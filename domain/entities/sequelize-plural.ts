/**
 * The plural SubQuery's node gives an entity name for its table: sequelize's `Utils.pluralize`,
 * which is `pluralize` of inflection 1.13 (MIT, Ben Lin). Its rules are kept here as data, frozen,
 * rather than taken from a package: a table name must never change because a dependency moved
 * (inflection 2 and the `pluralize` package already disagree with 1.13 on words SubQuery projects
 * use). The whole name is matched, so only its end decides: `StarterEntity` → `StarterEntities`,
 * `NewTTL` → `NewTTLs`, `Metadata` → `Metadata`, and a name that is an uncountable word stays as it is.
 */

/** inflection 1.13's uncountable words, compared with the whole name in lower case */
const UNCOUNTABLE = new Set(
  (
    'accommodation adulthood advertising advice aggression aid air aircraft alcohol anger applause arithmetic assistance athletics ' +
    'bacon baggage beef biology blood botany bread butter carbon cardboard cash chalk chaos chess crossroads countryside dancing deer ' +
    'dignity dirt dust economics education electricity engineering enjoyment envy equipment ethics evidence evolution fame fiction ' +
    'flour flu food fuel fun furniture gallows garbage garlic genetics gold golf gossip gratitude grief guilt gymnastics happiness ' +
    'hardware harm hate hatred health heat help homework honesty honey hospitality housework humour hunger hydrogen ice importance ' +
    'inflation information innocence iron irony jam jewelry judo karate knowledge lack laughter lava leather leisure lightning ' +
    'linguine linguini linguistics literature litter livestock logic loneliness luck luggage macaroni machinery magic management ' +
    'mankind marble mathematics mayonnaise measles methane milk minus money mud music mumps nature news nitrogen nonsense nurture ' +
    'nutrition obedience obesity oxygen pasta patience physics poetry pollution poverty pride psychology publicity punctuation quartz ' +
    'racism relaxation reliability research respect revenge rice rubbish rum safety scenery seafood seaside series shame sheep ' +
    'shopping sleep smoke smoking snow soap software soil spaghetti species steam stuff stupidity sunshine symmetry tennis thirst ' +
    'thunder timber traffic transportation trust underwear unemployment unity validity veal vegetation vegetarianism vengeance ' +
    'violence vitality warmth wealth weather welfare wheat wildlife wisdom yoga zinc zoology'
  ).split(' '),
);

/** Endings read as plural already: the name is kept. */
const ALREADY_PLURAL: readonly RegExp[] = [
  /^(m|wom)en$/i,
  /(pe)ople$/i,
  /(child)ren$/i,
  /([ti])a$/i,
  /((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)ses$/i,
  /(database)s$/i,
  /(drive)s$/i,
  /(hi|ti)ves$/i,
  /(curve)s$/i,
  /([lr])ves$/i,
  /([^fo])ves$/i,
  /([^aeiouy]|qu)ies$/i,
  /(s)eries$/i,
  /(m)ovies$/i,
  /(x|ch|ss|sh)es$/i,
  /([m|l])ice$/i,
  /(bus)es$/i,
  /(o)es$/i,
  /(shoe)s$/i,
  /(cris|ax|test)es$/i,
  /(octop|vir)uses$/i,
  /(alias|canvas|status|campus)es$/i,
  /^(summons|bonus)es$/i,
  /^(ox)en/i,
  /(matr)ices$/i,
  /^feet$/i,
  /^teeth$/i,
  /^geese$/i,
  /(quiz)zes$/i,
  /^(whereas)es$/i,
  /^(criteri)a$/i,
  /^genera$/i,
];

/** The first rule whose pattern matches rewrites the name. */
const RULES: readonly (readonly [RegExp, string])[] = [
  [/^(m|wom)an$/i, '$1en'],
  [/(pe)rson$/i, '$1ople'],
  [/(child)$/i, '$1ren'],
  [/(drive)$/i, '$1s'],
  [/^(ox)$/i, '$1en'],
  [/(ax|test)is$/i, '$1es'],
  [/(octop|vir)us$/i, '$1uses'],
  [/(alias|status|canvas|campus)$/i, '$1es'],
  [/^(summons|bonus)$/i, '$1es'],
  [/(bu)s$/i, '$1ses'],
  [/(buffal|tomat|potat)o$/i, '$1oes'],
  [/([ti])um$/i, '$1a'],
  [/sis$/i, 'ses'],
  [/(?:([^f])fe|([lr])f)$/i, '$1$2ves'],
  [/(hi|ti)ve$/i, '$1ves'],
  [/([^aeiouy]|qu)y$/i, '$1ies'],
  [/(matr)ix$/i, '$1ices'],
  [/(vert|ind)ex$/i, '$1ices'],
  [/(x|ch|ss|sh)$/i, '$1es'],
  [/([m|l])ouse$/i, '$1ice'],
  [/^foot$/i, 'feet'],
  [/^tooth$/i, 'teeth'],
  [/^goose$/i, 'geese'],
  [/(quiz)$/i, '$1zes'],
  [/^(whereas)$/i, '$1es'],
  [/^(criteri)on$/i, '$1a'],
  [/^genus$/i, 'genera'],
  [/s$/i, 's'],
  [/$/, 's'],
];

export function pluralizeAsSequelize(name: string): string {
  if (UNCOUNTABLE.has(name.toLowerCase())) return name;
  if (ALREADY_PLURAL.some((re) => re.test(name))) return name;
  for (const [re, to] of RULES) if (re.test(name)) return name.replace(re, to);
  return name;
}
