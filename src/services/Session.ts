/**
 * The `Session` service: one conversation — its history, its system prompt
 * and its tools — driven one user turn at a time.
 *
 * @module
 */
import { Context, type Effect, type Stream } from "effect"
import type { AgentEvent, TurnComplete } from "../domain/AgentEvent.js"
import type { ToolRegistrationError } from "../domain/errors.js"
import type { ChatMessage } from "../domain/Message.js"
import type { ResponseFormat } from "../domain/ResponseFormat.js"
import type { PresetName, SamplingOverrides } from "../domain/Sampling.js"
import type { Tool } from "../domain/Tool.js"
import type { AgentError } from "./Agent.js"
import type { ToolChoice } from "./ChatModel.js"

/** Text appended to the system prompt: fixed, or recomputed on every refresh. */
export type SystemAppend = string | (() => string)

/** Per-turn options. */
export interface ChatOptions {
  /** The preset for this turn; the session's preset when absent. */
  readonly preset?: PresetName
  /** Shaper overrides on top of the preset, for this turn only. */
  readonly sampling?: SamplingOverrides
  /** The most tokens each model turn may generate. */
  readonly maxTokens?: number
  /** The tool choice of the first model turn. */
  readonly toolChoice?: ToolChoice
  /** The shape of the answer (JSON, or JSON against a schema); free text when absent. */
  readonly responseFormat?: ResponseFormat
  /**
   * When the turn is interrupted, keep it: the user message and what the
   * model had written of its current answer, marked with
   * {@link interruptedMark}, so the next turn knows it was cut. By default
   * a turn interrupted before any hop completed leaves no trace.
   */
  readonly keepInterrupted?: boolean
}

/** The line that ends an answer kept after an interruption. */
export const interruptedMark = "[interrupted by the user]"

/** The session's operations. */
export interface Service {
  /** Runs one user turn and returns how it ended. */
  readonly chat: (text: string, options?: ChatOptions) => Effect.Effect<TurnComplete, AgentError>
  /** Runs one user turn as a stream of events. */
  readonly stream: (text: string, options?: ChatOptions) => Stream.Stream<AgentEvent, AgentError>
  /** The conversation so far, without the system prompt. */
  readonly history: Effect.Effect<ReadonlyArray<ChatMessage>>
  /** The system prompt the next turn will use. */
  readonly system: Effect.Effect<string>
  /** Composes the system prompt afresh, for inspection; changes nothing. */
  readonly renderSystem: Effect.Effect<string>
  /** Recomposes and installs the system prompt (after `appendSystem`); history is kept. */
  readonly refreshSystem: Effect.Effect<void>
  /** Replaces the base prompt verbatim and clears the history. */
  readonly setSystem: (text: string) => Effect.Effect<void>
  /** Adds text after the base prompt; it takes effect at the next `refreshSystem`. */
  readonly appendSystem: (append: SystemAppend) => Effect.Effect<void>
  /** Registers a tool and refreshes the system prompt (for its addendum); history is kept. */
  readonly addTool: (tool: Tool) => Effect.Effect<void, ToolRegistrationError>
  /** Clears the history. */
  readonly reset: Effect.Effect<void>
  /**
   * Replaces the history with a recap the model writes of it: the request
   * for the recap and the recap become the whole history, so later turns
   * carry the gist in far fewer tokens. Nothing changes when the history is
   * empty or the model writes no recap.
   */
  readonly compress: Effect.Effect<Compressed, AgentError>
}

/** What {@link Service.compress} did. */
export interface Compressed {
  /** The recap now standing for the conversation; empty when nothing changed. */
  readonly recap: string
  /** How many messages the recap replaced (0 when nothing changed). */
  readonly replaced: number
}

/** One conversation. */
export class Session extends Context.Tag("easyai/Session")<Session, Service>() {}
