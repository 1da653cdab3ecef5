/**
 * What the two stores share: the `MemoryStore` service that validates every
 * argument and hands validated names and bodies to a storage {@link Backend},
 * and the helpers both backends build their entries and views with.
 *
 * @module
 */
import { Effect } from "effect"
import {
  type AppendResult,
  checkBody,
  type EntryMeta,
  entryName,
  type EntryName,
  immutable,
  keywordsLimit,
  listLimit,
  listPrefix,
  type MemoryEntry,
  type MemoryError,
  queryKeywords,
  type SaveResult,
  searchLimit
} from "../../domain/memory.js"
import { clampLimit, listEntries, searchEntries, topKeywords, vocabularyOf } from "../../domain/memoryViews.js"
import type { MemoryVocabulary } from "../../domain/SystemPrompt.js"
import type { SaveOptions, Service } from "../../services/MemoryStore.js"

/** What the views need from an implementation: the entries and their vocabulary, current. */
export interface Snapshot {
  readonly entries: ReadonlyArray<EntryMeta>
  readonly vocabulary: MemoryVocabulary
}

/** The storage half of a store; validation and views are shared. */
export interface Backend {
  readonly snapshot: Effect.Effect<Snapshot, MemoryError>
  /** The last vocabulary known, for when a refresh fails (the vocabulary is advisory). */
  readonly lastVocabulary: Effect.Effect<MemoryVocabulary>
  readonly save: (name: EntryName, body: string, bytes: number) => Effect.Effect<SaveResult, MemoryError>
  readonly append: (name: EntryName, addition: string) => Effect.Effect<AppendResult, MemoryError>
  readonly load: (name: EntryName) => Effect.Effect<MemoryEntry, MemoryError>
  readonly delete: (name: EntryName) => Effect.Effect<EntryMeta, MemoryError>
}

/** Validates the arguments, then hands validated names and bodies to the backend. */
export const makeService = (backend: Backend): Service => ({
  vocabulary: backend.snapshot.pipe(
    Effect.map((snapshot) => snapshot.vocabulary),
    Effect.catchAll((error) =>
      Effect.logWarning("memory vocabulary refresh failed; using the last one known").pipe(
        Effect.annotateLogs({ error: error.message }),
        Effect.zipRight(backend.lastVocabulary)
      )
    )
  ),
  save: Effect.fn("MemoryStore.save")(function*(keywords: ReadonlyArray<string>, body: string, options: SaveOptions = {}) {
    const name = yield* entryName(keywords, options)
    const bytes = yield* checkBody(body, name.file)
    return yield* backend.save(name, body, bytes)
  }),
  append: Effect.fn("MemoryStore.append")(function*(keywords: ReadonlyArray<string>, body: string) {
    const name = yield* entryName(keywords)
    if (name.fixed) return yield* immutable(name.file, "append to")
    yield* checkBody(body, name.file)
    return yield* backend.append(name, body)
  }),
  search: Effect.fn("MemoryStore.search")(function*(keywords: ReadonlyArray<string>, limit?: number) {
    const query = yield* queryKeywords(keywords)
    const { entries } = yield* backend.snapshot
    return searchEntries(entries, query, clampLimit(limit, searchLimit))
  }),
  load: Effect.fn("MemoryStore.load")(function*(keywords: ReadonlyArray<string>) {
    return yield* backend.load(yield* entryName(keywords))
  }),
  list: Effect.fn("MemoryStore.list")(function*(prefix: string = "", limit?: number) {
    const normalised = yield* listPrefix(prefix)
    const { entries } = yield* backend.snapshot
    return listEntries(entries, normalised, clampLimit(limit, listLimit))
  }),
  delete: Effect.fn("MemoryStore.delete")(function*(keywords: ReadonlyArray<string>) {
    const name = yield* entryName(keywords)
    if (name.fixed) return yield* immutable(name.file, "delete")
    return yield* backend.delete(name)
  }),
  keywords: Effect.fn("MemoryStore.keywords")(function*(limit?: number, minCount?: number) {
    const { vocabulary } = yield* backend.snapshot
    return topKeywords(vocabulary, clampLimit(limit, keywordsLimit), Math.max(1, minCount ?? 1))
  })
})

/** The view of `entries`: them and their vocabulary. */
export const viewOf = (entries: ReadonlyArray<EntryMeta>): Snapshot => ({ entries, vocabulary: vocabularyOf(entries) })

/** The metadata of the entry `name`, of `bytes` bytes, last modified at `modifiedMillis`. */
export const metaOf = (name: EntryName, bytes: number, modifiedMillis: number): EntryMeta => ({
  key: name.key,
  file: name.file,
  keywords: name.keywords,
  fixed: name.fixed,
  bytes,
  modifiedMillis
})
