/**
 * A map that forgets: what it holds is bounded by a total weight (one per
 * entry by default, or what an entry costs to keep), and the least recently
 * used entry goes first. A JavaScript `Map` iterates in insertion order, so
 * an entry read or written is moved to the back and the front is the
 * oldest.
 *
 * @module
 */

/** A bounded map, least recently used out first. */
export interface RecentMap<V> {
  /** The value of `key`, which becomes the most recently used; `undefined` when absent. */
  readonly get: (key: string) => V | undefined
  /** Keeps `value` under `key` (unless it alone weighs more than the capacity) and returns it. */
  readonly set: (key: string, value: V) => V
}

/** A map holding at most `capacity` of weight, each entry weighing `weigh(key, value)`. */
export const makeRecentMap = <V>(capacity: number, weigh: (key: string, value: V) => number = () => 1): RecentMap<V> => {
  const entries = new Map<string, V>()
  let held = 0
  const remove = (key: string, value: V): void => {
    entries.delete(key)
    held -= weigh(key, value)
  }
  return {
    get: (key) => {
      const value = entries.get(key)
      if (value === undefined) return undefined
      entries.delete(key)
      entries.set(key, value)
      return value
    },
    set: (key, value) => {
      const previous = entries.get(key)
      if (previous !== undefined) remove(key, previous)
      const weight = weigh(key, value)
      if (weight > capacity) return value
      entries.set(key, value)
      held += weight
      for (const [oldest, kept] of entries) {
        if (held <= capacity) break
        remove(oldest, kept)
      }
      return value
    }
  }
}
