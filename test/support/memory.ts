import { Effect, Layer } from "effect"
import { type KeywordCount, MemoryStore } from "easyai"

/** A memory store that only reports a fixed vocabulary. */
export const memoryWithVocabulary = (entries: number, keywords: ReadonlyArray<KeywordCount>): Layer.Layer<MemoryStore> =>
  Layer.succeed(MemoryStore, { vocabulary: Effect.succeed({ entries, keywords }) })
