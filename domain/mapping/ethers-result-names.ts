/**
 * Which keys ethers v5 gives a decoded Result besides its positions, since SubQuery mappings read
 * `args.from` as well as `args[0]`. ethers has two rules, and both are kept to the letter (a key it
 * leaves out is `undefined` in a SubQuery mapping, so it must be here too):
 * - an event's own arguments (`Interface.decodeEventLog`): each named argument in order, unless the
 *   array already has that key (an earlier argument of the same name, or `length`, `map`, … of
 *   Array.prototype);
 * - tuples and call data (the ABI coder's `unpack`): only names used once (counted on a plain
 *   object, so `constructor`, `toString` and the like never count as once), `length` renamed
 *   `_length`, and again no key the array already has.
 * Each returns, per position, the key it is also read under, or null.
 */
export function eventArgNames(names: readonly (string | null | undefined)[]): (string | null)[] {
  const taken = new Set<string>();
  return names.map((name) => {
    if (!name || taken.has(name) || inherited(name)) return null;
    taken.add(name);
    return name;
  });
}

export function tupleNames(names: readonly (string | null | undefined)[]): (string | null)[] {
  // ethers counts with `accum[name]++` on `{}`: a name Object.prototype has starts as a function and ends NaN
  const counts: Record<string, number> = {};
  for (const name of names) {
    if (!name) continue;
    if (!counts[name]) counts[name] = 0;
    counts[name]++;
  }
  const taken = new Set<string>();
  return names.map((name) => {
    if (!name || counts[name] !== 1) return null;
    const key = name === 'length' ? '_length' : name;
    if (taken.has(key) || inherited(key)) return null;
    taken.add(key);
    return key;
  });
}

/** `values[name] != null` of an empty array: what every array already answers for that key */
const inherited = (key: string): boolean => ([] as unknown as Record<string, unknown>)[key] != null;
