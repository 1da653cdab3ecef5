/**
 * The `MemoryStore` service: the agent's keyword-indexed long-term memory.
 *
 * @module
 */
import { Context, type Effect } from "effect"
import type { MemoryVocabulary } from "../domain/SystemPrompt.js"

/** The store's operations. */
export interface Service {
  /** How many entries the store holds and how often each keyword tags one. */
  readonly vocabulary: Effect.Effect<MemoryVocabulary>
}

/** The agent's long-term memory. */
export class MemoryStore extends Context.Tag("easyai/MemoryStore")<MemoryStore, Service>() {}
