/**
 * The `Agent` service: the agentic loop for one user turn.
 *
 * @module
 */
import { Context, type Stream } from "effect"
import type { AgentEvent } from "../domain/AgentEvent.js"
import type { ChatModelError } from "../domain/errors.js"
import type { ChatMessage } from "../domain/Message.js"
import type { ResponseFormat } from "../domain/ResponseFormat.js"
import type { SamplingParams } from "../domain/Sampling.js"
import type { ToolChoice } from "./ChatModel.js"

/** What one run of the loop needs. */
export interface RunInput {
  /** The conversation: the system prompt first, the new user message last. */
  readonly messages: ReadonlyArray<ChatMessage>
  /** The shapers for every model turn of this run; the model's defaults when absent. */
  readonly sampling?: SamplingParams
  /** The most tokens each model turn may generate. */
  readonly maxTokens?: number
  /** Extra stop sequences for every model turn. */
  readonly stop?: ReadonlyArray<string>
  /**
   * The tool choice for the FIRST model turn only (e.g. `required` to force a
   * call); later turns are `auto`, so a forced call cannot loop forever.
   */
  readonly toolChoice?: ToolChoice
  /** Overrides the loop's hop budget for this run. */
  readonly maxToolHops?: number
  /** The shape of every model turn's answer (JSON, or JSON against a schema); free text when absent. */
  readonly responseFormat?: ResponseFormat
}

/** Everything a run can fail with. Tool failures are not here: the model reads them. */
export type AgentError = ChatModelError

/** The loop's operation. */
export interface Service {
  /**
   * Runs the loop: model turn, tool calls through the approval gate and the
   * registry, results appended, again — until the model answers or the hop
   * budget runs out. Ends with `TurnComplete`. Stopping the stream stops
   * the model and any running tool.
   */
  readonly run: (input: RunInput) => Stream.Stream<AgentEvent, AgentError>
}

/** The agentic loop. */
export class Agent extends Context.Tag("easyai/Agent")<Agent, Service>() {}
