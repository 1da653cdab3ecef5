/**
 * The `Preamble` service: renders the dynamic preamble (fresh on every call)
 * and composes whole system prompts.
 *
 * @module
 */
import { Context, type Effect } from "effect"
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
  /** The dynamic preamble, with the current time and memory vocabulary. */
  readonly build: (options?: Partial<PreambleOptions>) => Effect.Effect<string>
  /** A whole system prompt, in the fixed five-layer order. */
  readonly compose: (input: ComposeInput) => Effect.Effect<string>
}

/** Composes system prompts. */
export class Preamble extends Context.Tag("easyai/Preamble")<Preamble, Service>() {}
