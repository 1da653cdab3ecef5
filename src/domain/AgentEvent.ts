/**
 * What the agent loop emits for one user turn. Programs render these: the
 * CLI to the terminal, the server to SSE chunks, tests to assertions.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import { HopLimitReached } from "./errors.js"
import { ChatMessage } from "./Message.js"
import { PromptProgress, ReasoningDelta, TextDelta, Usage } from "./ModelEvent.js"
import { ToolCall, ToolResult } from "./ToolCall.js"

export { PromptProgress, ReasoningDelta, TextDelta, Usage }

/** The loop is about to run a tool call; the approval gate is asked next. */
export class ToolCallStarted extends Schema.TaggedClass<ToolCallStarted>()("ToolCallStarted", {
  call: ToolCall
}) {}

/** A tool call finished; `result` is what the model will read. */
export class ToolCallFinished extends Schema.TaggedClass<ToolCallFinished>()("ToolCallFinished", {
  call: ToolCall,
  result: ToolResult,
  durationMillis: Schema.Number
}) {}

/**
 * The model turn streamed so far was discarded and will be produced again:
 * drop the text and reasoning shown since the last hop boundary.
 *
 * - `ThoughtOnly`: the model reasoned but neither answered nor called a tool.
 * - `AnnounceOnly`: the model said it would use a tool ("Let me search…")
 *   without calling one.
 */
export class HopReset extends Schema.TaggedClass<HopReset>()("HopReset", {
  reason: Schema.Literal("ThoughtOnly", "AnnounceOnly", "Incomplete"),
  attempt: Schema.Number
}) {}

/**
 * Messages this turn added to the conversation: after each tool hop the
 * assistant message with its calls and the tool results, at the end the
 * final answer. A conversation is its history plus every appended message,
 * so an interrupted turn still leaves a consistent history behind.
 */
export class MessagesAppended extends Schema.TaggedClass<MessagesAppended>()("MessagesAppended", {
  messages: Schema.Array(ChatMessage)
}) {}

/**
 * Why a turn ended: the model answered (`Stop`), ran out of tokens
 * (`Length`), or was still calling tools when the hop budget ran out
 * (`HopLimitReached`, `text` is then the partial answer).
 */
export const StopReason = Schema.Literal("Stop", "Length", "HopLimitReached")
/** Why a turn ended. */
export type StopReason = typeof StopReason.Type

/** The turn is over. Always the last event of a successful run. */
export class TurnComplete extends Schema.TaggedClass<TurnComplete>()("TurnComplete", {
  text: Schema.String,
  reasoning: Schema.optional(Schema.String),
  stopReason: StopReason,
  hops: Schema.Number
}) {}

/**
 * Treats a turn that ran out of tool hops as a failure, for callers that
 * want one: fails with `HopLimitReached` carrying the partial answer.
 */
export const failOnHopLimit = (turn: TurnComplete): Effect.Effect<TurnComplete, HopLimitReached> =>
  turn.stopReason === "HopLimitReached"
    ? Effect.fail(new HopLimitReached({ hops: turn.hops, partial: turn.text }))
    : Effect.succeed(turn)

/** Any event of an agent turn. */
export const AgentEvent = Schema.Union(
  TextDelta,
  ReasoningDelta,
  ToolCallStarted,
  ToolCallFinished,
  HopReset,
  PromptProgress,
  Usage,
  MessagesAppended,
  TurnComplete
)
/** Any event of an agent turn. */
export type AgentEvent = typeof AgentEvent.Type
