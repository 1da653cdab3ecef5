/**
 * The `Engine` service: a local model running in-process on llama.cpp
 * through node-llama-cpp.
 *
 * @module
 */
import { Context, type Stream } from "effect"
import type { Llama, LlamaContext, LlamaModel } from "node-llama-cpp"
import type { ChatModelError } from "../domain/errors.js"
import type { ModelEvent } from "../domain/ModelEvent.js"
import type { SamplingParams } from "../domain/Sampling.js"
import type { ChatRequest, ModelInfo } from "./ChatModel.js"

/**
 * The node-llama-cpp objects behind an engine: the escape hatch for what the
 * library does not wrap. Use them with care — the engine owns and disposes
 * them, and generation on the context's sequences is the engine's.
 */
export interface Native {
  readonly llama: Llama
  readonly model: LlamaModel
  readonly context: LlamaContext
}

/** A template-free completion: the model continues `prompt` as is. */
export interface CompletionRequest {
  readonly prompt: string
  /** The shapers; the default preset's when absent. */
  readonly sampling?: SamplingParams
  readonly maxTokens?: number
  readonly stop?: ReadonlyArray<string>
  /** Overrides the engine's configured seed. */
  readonly seed?: number
}

/** The engine's operations. */
export interface Service {
  readonly info: ModelInfo
  /**
   * Produces one assistant turn: text and reasoning deltas as they are
   * generated, prompt progress, tool calls, usage, then `Finished`.
   * Interrupting the stream stops generation within one token.
   */
  readonly stream: (request: ChatRequest) => Stream.Stream<ModelEvent, ChatModelError>
  /**
   * Continues a raw prompt with no chat template: `TextDelta`s, then `Usage`
   * and `Finished`. Interrupting the stream stops generation within one token.
   */
  readonly complete: (request: CompletionRequest) => Stream.Stream<ModelEvent, ChatModelError>
  /** The tokens the request's prompt takes, rendered with the model's chat template (its messages, and its tools unless none are offered). */
  readonly countTokens: (request: ChatRequest) => number
  /** The underlying node-llama-cpp objects. */
  readonly native: Native
}

/** A loaded local model. */
export class Engine extends Context.Tag("easyai/Engine")<Engine, Service>() {}
