/**
 * The `MemoryStore` in memory, for tests and throw-away sessions: the same
 * validation and ranking as the file store, no files.
 *
 * @module
 */
import { Clock, Effect, Layer, SynchronizedRef } from "effect"
import {
  type AppendResult,
  appendedBody,
  checkAppended,
  type EntryMeta,
  immutable,
  notFound
} from "../../domain/memory.js"
import { MemoryStore } from "../../services/MemoryStore.js"
import { type Backend, makeService, metaOf, type Snapshot, viewOf } from "./backend.js"
import { utf8Length } from "../../domain/utf8.js"

interface Stored {
  readonly meta: EntryMeta
  readonly body: string
}

interface MemoryState {
  readonly entries: ReadonlyMap<string, Stored>
  /** The entries and their vocabulary, computed on demand and dropped by every write. */
  readonly view: Snapshot | undefined
}

const makeInMemory = Effect.gen(function*() {
  const state = yield* SynchronizedRef.make<MemoryState>({ entries: new Map(), view: undefined })
  const withEntry = (current: MemoryState, stored: Stored): MemoryState => ({
    entries: new Map(current.entries).set(stored.meta.key, stored),
    view: undefined
  })

  const snapshot = SynchronizedRef.modify(state, (current): [Snapshot, MemoryState] => {
    const view = current.view ?? viewOf([...current.entries.values()].map((stored) => stored.meta))
    return [view, { ...current, view }]
  })

  const backend: Backend = {
    snapshot,
    lastVocabulary: Effect.map(snapshot, (s) => s.vocabulary),
    save: (name, body, bytes) =>
      SynchronizedRef.modifyEffect(state, (current) =>
        Effect.gen(function*() {
          const existing = current.entries.get(name.key)
          if (existing !== undefined && name.fixed) return yield* immutable(name.file, "overwrite")
          const stored = { meta: metaOf(name, bytes, yield* Clock.currentTimeMillis), body }
          return [{ entry: stored.meta, created: existing === undefined }, withEntry(current, stored)] as const
        })),
    append: (name, addition) =>
      SynchronizedRef.modifyEffect(state, (current) =>
        Effect.gen(function*() {
          const existing = current.entries.get(name.key)
          const now = yield* Clock.currentTimeMillis
          if (existing === undefined) {
            const stored = { meta: metaOf(name, utf8Length(addition), now), body: addition }
            const result: AppendResult = { entry: stored.meta, created: true, addedBytes: stored.meta.bytes }
            return [result, withEntry(current, stored)] as const
          }
          const body = appendedBody(existing.body, addition)
          const bytes = yield* checkAppended(name.file, existing.meta.bytes, body)
          const stored = { meta: metaOf(name, bytes, now), body }
          const result: AppendResult = { entry: stored.meta, created: false, addedBytes: bytes - existing.meta.bytes }
          return [result, withEntry(current, stored)] as const
        })),
    load: (name) =>
      Effect.flatMap(SynchronizedRef.get(state), (current) => {
        const stored = current.entries.get(name.key)
        return stored === undefined ? Effect.fail(notFound(name)) : Effect.succeed({ ...stored.meta, body: stored.body })
      }),
    delete: (name) =>
      SynchronizedRef.modifyEffect(state, (current) => {
        const stored = current.entries.get(name.key)
        if (stored === undefined) return Effect.fail(notFound(name))
        const entries = new Map(current.entries)
        entries.delete(name.key)
        return Effect.succeed([stored.meta, { entries, view: undefined }] as const)
      })
  }
  return makeService(backend)
})

/** A store that lives in this process only: the same rules, no files. */
export const inMemory: Layer.Layer<MemoryStore> = Layer.effect(MemoryStore, makeInMemory)
