import pluralize from 'pluralize';

/** graph-node's names for an entity's query fields and input types. */
export interface GraphNames {
  /** `Transfer` */
  type: string;
  /** `transfer(id:)` */
  single: string;
  /** `transfers(...)`; `sheep_collection` when the plural is the singular */
  collection: string;
  /** `Transfer_filter` */
  filter: string;
  /** `Transfer_orderBy` */
  orderBy: string;
}

const isLower = (c: string) => c !== c.toUpperCase() && c === c.toLowerCase();
const isUpper = (c: string) => c !== c.toLowerCase() && c === c.toUpperCase();
const isAlphanumeric = (c: string) => /^[\p{L}\p{N}]$/u.test(c);

/**
 * camelCase as graph-node computes it (the Inflector crate 0.11's `to_camel_case`), so that field
 * names match those of existing queries: a word starts after a separator, after a digit, or at an
 * upper-case letter that follows a lower-case one; every other letter is lower-cased. So
 * `StarterEntity` → `starterEntity`, `ERC20Token` → `erc20Token`, `NFTOwner` → `nftowner`.
 */
export function graphCamelCase(name: string): string {
  let out = '';
  let newWord = false;
  // the last letter that did not start a word: Inflector compares with it, not with the last character
  let last = ' ';
  let found = false;
  for (const c of name.replace(/[^\p{L}\p{N}]+$/u, '')) {
    if (!isAlphanumeric(c)) {
      if (found) newWord = true;
      continue;
    }
    found = true;
    if (/^\p{N}$/u.test(c)) {
      newWord = true;
      out += c;
    } else if (newWord || (isLower(last) && isUpper(c))) {
      newWord = false;
      out += c.toUpperCase();
    } else {
      last = c;
      out += c.toLowerCase();
    }
  }
  return out;
}

/**
 * The names graph-node gives an entity type: camelCase singular and plural (`pluralize` stands in
 * for Inflector's English rules; they agree on regular nouns), and `<single>_collection` when the
 * plural is the singular (`Sheep`).
 */
export function graphNames(entityName: string): GraphNames {
  const single = graphCamelCase(entityName);
  let collection = graphCamelCase(pluralize(entityName));
  if (collection === single) collection = `${single}_collection`;
  return { type: entityName, single, collection, filter: `${entityName}_filter`, orderBy: `${entityName}_orderBy` };
}
