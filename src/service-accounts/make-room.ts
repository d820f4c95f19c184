/**
 * Bounded maps kept in insertion order, oldest first (re-inserting a key moves it to the end):
 * when `map` holds `max` entries or more, deletes the oldest, a batch at a time, and returns how
 * many. `spare` may keep an entry instead (it is then moved to the end; it must not spare the same
 * entry twice in a row, or this would not end).
 *
 * A batch, because V8 leaves a hole for every deleted entry until it rebuilds the table, and each
 * new iteration from the front walks over them: deleting one entry per insertion made every
 * insertion into a full map of 100,000 cost tens of microseconds.
 */
export function makeRoom<K, V>(map: Map<K, V>, max: number, spare?: (value: V) => boolean): number {
  if (map.size < max) return 0
  const batch = Math.max(1, Math.ceil(max / 128), map.size - max + 1)
  let deleted = 0
  for (const [key, value] of map) {
    map.delete(key)
    if (spare?.(value) === true) map.set(key, value)
    else if (++deleted >= batch) break
  }
  return deleted
}
