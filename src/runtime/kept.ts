// Things made once per key and kept, a bounded number of them: past the bound the map starts over,
// and whatever is asked for again is made again (each is cheap to make, and the same made twice).

export function keptOrMade<K, V>(kept: Map<K, V>, key: K, bound: number, make: () => V): V {
  let value = kept.get(key);
  if (value === undefined) {
    if (kept.size >= bound) kept.clear();
    value = make();
    kept.set(key, value);
  }
  return value;
}
