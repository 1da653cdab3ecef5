/**
 * The `ChatModel` service: the swap point between backends. One call, one
 * assistant turn, streamed. It never runs tools: it reports the calls the
 * model asked for and the agent loop does the rest.
 *
 * @module
 */
import { Context, type Effect, type Stream } from "effect"
import type { ChatModelError } from "../domain/errors.js"
import type { ChatMessage } from "../domain/Message.js"
import type { ModelEvent } from "../domain/ModelEvent.js"
import type { ResponseFormat } from "../domain/ResponseFormat.js"
import type { SamplingParams } from "../domain/Sampling.js"
import type { ToolSpec } from "../domain/ToolCall.js"

/**
 * Whether the model may (`auto`), must not (`none`) or must (`required`)
 * call a tool, or must call one named tool. A backend that can constrain its
 * output (a grammar) enforces `required` and a named tool.
 */
export type ToolChoice = "auto" | "none" | "required" | { readonly name: string }

/** Everything a model needs to produce the next assistant turn. */
export interface ChatRequest {
  /** The conversation so far, system prompt first. */
  readonly messages: ReadonlyArray<ChatMessage>
  /** The tools the model may call. */
  readonly tools: ReadonlyArray<ToolSpec>
  /** `auto` when absent. */
  readonly toolChoice?: ToolChoice
  /** The shapers for this turn; the backend's defaults when absent. */
  readonly sampling?: SamplingParams
  /** The most tokens this turn may generate. */
  readonly maxTokens?: number
  /** Extra stop sequences. */
  readonly stop?: ReadonlyArray<string>
  /** The shape the answer must take (JSON, or JSON against a schema); free text when absent. */
  readonly responseFormat?: ResponseFormat
}

/** What a model is, for banners, logs and `/v1/models`. */
export interface ModelInfo {
  readonly name: string
  readonly backend: string
  readonly contextSize?: number
}

/** A model's operations. */
export interface Service {
  readonly info: Effect.Effect<ModelInfo>
  /**
   * Produces one assistant turn. The stream ends with a `Finished` event;
   * stopping it early (interruption) cancels the generation.
   */
  readonly stream: (request: ChatRequest) => Stream.Stream<ModelEvent, ChatModelError>
}

/** The model an agent talks to. */
export class ChatModel extends Context.Tag("easyai/ChatModel")<ChatModel, Service>() {}
