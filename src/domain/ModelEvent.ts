/**
 * What a `ChatModel` emits while it produces one assistant turn.
 *
 * @module
 */
import { Schema } from "effect"
import { ToolCall } from "./ToolCall.js"

/** A piece of visible answer text. */
export class TextDelta extends Schema.TaggedClass<TextDelta>()("TextDelta", {
  text: Schema.String
}) {}

/** A piece of reasoning (the `<think>` channel), kept apart from the answer. */
export class ReasoningDelta extends Schema.TaggedClass<ReasoningDelta>()("ReasoningDelta", {
  text: Schema.String
}) {}

/** A complete tool call, emitted once its arguments are whole. */
export class ToolCallRequested extends Schema.TaggedClass<ToolCallRequested>()("ToolCallRequested", {
  call: ToolCall
}) {}

/** Prompt evaluation progress: `processed` of `total` prompt tokens are in the cache. */
export class PromptProgress extends Schema.TaggedClass<PromptProgress>()("PromptProgress", {
  processed: Schema.Number,
  total: Schema.Number
}) {}

/** Token accounting for one model turn. Fields a backend cannot know are absent. */
export class Usage extends Schema.TaggedClass<Usage>()("Usage", {
  promptTokens: Schema.Number,
  cachedTokens: Schema.optional(Schema.Number),
  completionTokens: Schema.Number,
  contextUsed: Schema.optional(Schema.Number),
  contextSize: Schema.optional(Schema.Number),
  tokensPerSecond: Schema.optional(Schema.Number),
  /** Prompt tokens evaluated per second (the ones not already cached). */
  promptTokensPerSecond: Schema.optional(Schema.Number)
}) {}

/** Why a model turn ended. */
export const FinishReason = Schema.Literal("stop", "length", "tool_calls")
/** Why a model turn ended. */
export type FinishReason = typeof FinishReason.Type

/** The model finished its turn. Always the last event of a successful stream. */
export class Finished extends Schema.TaggedClass<Finished>()("Finished", {
  reason: FinishReason
}) {}

/** Any event of a model turn. */
export const ModelEvent = Schema.Union(TextDelta, ReasoningDelta, ToolCallRequested, PromptProgress, Usage, Finished)
/** Any event of a model turn. */
export type ModelEvent = typeof ModelEvent.Type
