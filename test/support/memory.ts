import { Effect, Layer } from "effect"
import { MemoryStore, MemoryStoreLive } from "easyai"
import type { KeywordCount } from "../../src/domain/SystemPrompt.js"

/** A memory store reporting a fixed vocabulary; its other operations work on an empty in-memory store. */
export const memoryWithVocabulary = (entries: number, keywords: ReadonlyArray<KeywordCount>): Layer.Layer<MemoryStore> =>
  Layer.effect(
    MemoryStore,
    Effect.map(MemoryStore, (store) => ({ ...store, vocabulary: Effect.succeed({ entries, keywords }) }))
  ).pipe(Layer.provide(MemoryStoreLive.inMemory))
