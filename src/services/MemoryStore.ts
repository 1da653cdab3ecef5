/**
 * The `MemoryStore` service: the agent's keyword-indexed long-term memory.
 * An entry is a Markdown body identified by its keywords alone; the rules
 * (valid keywords, naming, caps, immutable `fix-` entries) are in
 * `domain/memory.ts`, the implementations in `layers/memory/`.
 *
 * @module
 */
import { Context, type Effect } from "effect"
import type {
  AppendResult,
  EntryMeta,
  KeywordsResult,
  ListResult,
  MemoryEntry,
  MemoryError,
  SaveResult,
  SearchResult
} from "../domain/memory.js"
import type { MemoryVocabulary } from "../domain/SystemPrompt.js"

/** Options of {@link Service.save}. */
export interface SaveOptions {
  /**
   * Mint an immutable entry: the first keyword given gets the `fix-` prefix
   * (unless a keyword already has it). Default false.
   */
  readonly fix?: boolean
}

/** The store's operations. */
export interface Service {
  /** How many entries the store holds and how often each keyword tags one. */
  readonly vocabulary: Effect.Effect<MemoryVocabulary>
  /**
   * Writes the entry named by `keywords`, replacing an existing body.
   * Fails `Immutable` when the entry is a `fix-` entry that already exists.
   */
  readonly save: (
    keywords: ReadonlyArray<string>,
    body: string,
    options?: SaveOptions
  ) => Effect.Effect<SaveResult, MemoryError>
  /**
   * Adds `body` to the entry after a `---` line, or creates the entry when
   * there is none. Fails `Immutable` for any `fix-` entry.
   */
  readonly append: (keywords: ReadonlyArray<string>, body: string) => Effect.Effect<AppendResult, MemoryError>
  /**
   * The entries carrying any of `keywords`, most matching keywords first,
   * then most recent. `limit` defaults to 10 and is clamped to 1..20.
   */
  readonly search: (keywords: ReadonlyArray<string>, limit?: number) => Effect.Effect<SearchResult, MemoryError>
  /** Reads one entry's body, fresh from the store. Fails `NotFound`. */
  readonly load: (keywords: ReadonlyArray<string>) => Effect.Effect<MemoryEntry, MemoryError>
  /**
   * The entries whose key or any keyword starts with `prefix` (all when
   * absent or empty), by key. `limit` defaults to 50 and is clamped to 1..200.
   */
  readonly list: (prefix?: string, limit?: number) => Effect.Effect<ListResult, MemoryError>
  /** Removes an entry. Fails `NotFound`, or `Immutable` for a `fix-` entry. */
  readonly delete: (keywords: ReadonlyArray<string>) => Effect.Effect<EntryMeta, MemoryError>
  /**
   * The vocabulary page: keywords carried by at least `minCount` entries
   * (default 1), the `limit` most common (default 200, clamped to 1..500).
   */
  readonly keywords: (limit?: number, minCount?: number) => Effect.Effect<KeywordsResult, MemoryError>
}

/** The agent's long-term memory. */
export class MemoryStore extends Context.Tag("easyai/MemoryStore")<MemoryStore, Service>() {}
