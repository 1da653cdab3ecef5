/**
 * The `Preamble` service: composes whole system prompts (stable across the
 * turns of a conversation) and stamps each turn with the current time.
 *
 * @module
 */
import { Context, type Effect } from "effect"
import type { ChatMessage } from "../domain/Message.js"
import type { PreambleOptions, SystemPromptLayers } from "../domain/SystemPrompt.js"

/** What a caller gives to compose a system prompt. */
export interface ComposeInput extends Omit<SystemPromptLayers, "preamble"> {
  /** Overrides of the preamble options this service was built with. */
  readonly preamble?: Partial<PreambleOptions>
}

/** The composer's operations. */
export interface Service {
  /** The options used when a call overrides none. */
  readonly defaults: PreambleOptions
  /**
   * The dynamic preamble with the memory vocabulary; it names no time, so it
   * changes only when memory does. `toolNames` are the active tools, the
   * only ones it may name (none by default).
   */
  readonly build: (options?: Partial<PreambleOptions>, toolNames?: ReadonlyArray<string>) => Effect.Effect<string>
  /** A whole system prompt, in the fixed five-layer order. */
  readonly compose: (input: ComposeInput) => Effect.Effect<string>
  /**
   * The conversation as the model sees it on this turn: the newest user
   * message ends with the current time, and every earlier one with the
   * time it was sent, remembered from the turn that stamped it (unless
   * `injectDateTime` is off). Call it on what is sent, never on the history kept.
   */
  readonly stamp: (
    messages: ReadonlyArray<ChatMessage>,
    options?: Partial<PreambleOptions>
  ) => Effect.Effect<ReadonlyArray<ChatMessage>>
}

/** Composes system prompts. */
export class Preamble extends Context.Tag("easyai/Preamble")<Preamble, Service>() {}
