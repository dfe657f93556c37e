/**
 * `compute` remembered for the keys asked lately, at most `max` of them: two generations, the newer
 * filled as keys are asked (a key found only in the older one moves up), the older dropped whole
 * once the newer is full. An LRU map's reordering at every hit (a delete and a re-insert) would cost
 * more than many of the values it saves computing.
 */
export function memoRecent<K, V>(max: number, compute: (key: K) => V): (key: K) => V {
  const half = Math.max(1, Math.floor(max / 2));
  let young = new Map<K, V>();
  let old = new Map<K, V>();
  return (key) => {
    if (young.has(key)) return young.get(key)!;
    const value = old.has(key) ? old.get(key)! : compute(key);
    young.set(key, value);
    if (young.size >= half) {
      old = young;
      young = new Map();
    }
    return value;
  };
}
