/**
 * The views over an index of memory entries, as pure functions: search
 * ranking, listing by prefix, and the keyword vocabulary. Both store
 * implementations use them, so they answer the same.
 *
 * @module
 */
import { type EntryMeta, fixPrefix, type KeywordsResult, type LimitCap, type ListResult, type SearchHit, type SearchResult } from "./memory.js"
import type { KeywordCount, MemoryVocabulary } from "./SystemPrompt.js"

/** A page size within its cap: the default when absent, clamped to 1..max. */
export const clampLimit = (limit: number | undefined, cap: LimitCap): number =>
  limit === undefined || !Number.isFinite(limit) ? cap.default : Math.min(cap.max, Math.max(1, Math.floor(limit)))

/** Whether an entry keyword answers a query keyword: equal, or equal once its `fix-` prefix is dropped. */
const answers = (entryKeyword: string, query: string): boolean =>
  entryKeyword === query || entryKeyword === `${fixPrefix}${query}`

const byKey = (a: EntryMeta, b: EntryMeta): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

/**
 * Ranks the entries carrying any of `query`: most matching keywords first,
 * then most recently written, then by key.
 */
export const searchEntries = (
  entries: Iterable<EntryMeta>,
  query: ReadonlyArray<string>,
  limit: number
): SearchResult => {
  const hits: Array<SearchHit> = []
  for (const entry of entries) {
    const matched = query.filter((q) => entry.keywords.some((k) => answers(k, q)))
    if (matched.length > 0) hits.push({ entry, matched })
  }
  hits.sort((a, b) =>
    b.matched.length - a.matched.length || b.entry.modifiedMillis - a.entry.modifiedMillis || byKey(a.entry, b.entry)
  )
  return { total: hits.length, hits: hits.slice(0, limit) }
}

/** The entries whose key or any keyword starts with `prefix` (all when empty), by key. */
export const listEntries = (entries: Iterable<EntryMeta>, prefix: string, limit: number): ListResult => {
  const matching = [...entries]
    .filter((entry) => prefix === "" || entry.key.startsWith(prefix) || entry.keywords.some((k) => k.startsWith(prefix)))
    .sort(byKey)
  return { total: matching.length, entries: matching.slice(0, limit) }
}

const byCountThenName = (a: KeywordCount, b: KeywordCount): number =>
  b.count - a.count || (a.keyword < b.keyword ? -1 : a.keyword > b.keyword ? 1 : 0)

/** How many entries there are and how many carry each keyword, most common first. */
export const vocabularyOf = (entries: Iterable<EntryMeta>): MemoryVocabulary => {
  const counts = new Map<string, number>()
  let total = 0
  for (const entry of entries) {
    total++
    for (const keyword of entry.keywords) counts.set(keyword, (counts.get(keyword) ?? 0) + 1)
  }
  const keywords = [...counts].map(([keyword, count]) => ({ keyword, count })).sort(byCountThenName)
  return { entries: total, keywords }
}

/** A page of the vocabulary: keywords carried by at least `minCount` entries, the `limit` most common. */
export const topKeywords = (vocabulary: MemoryVocabulary, limit: number, minCount = 1): KeywordsResult => {
  const kept = [...vocabulary.keywords].filter((k) => k.count >= minCount).sort(byCountThenName)
  return { entries: vocabulary.entries, distinct: kept.length, keywords: kept.slice(0, limit) }
}
