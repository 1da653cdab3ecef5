/**
 * Ollama's chat and generate protocol (`POST /api/chat`, `POST /api/generate`),
 * as far as easyai speaks it: the requests it decodes and the NDJSON lines it
 * writes (a streamed answer is one JSON object per line, the last with
 * `done: true` and the counts).
 *
 * @module
 */
import { Schema } from "effect"
import { optionalNullable } from "../json.js"

/** A tool call in Ollama's shape: no id, the arguments an object. */
export const OllamaToolCall = Schema.Struct({
  function: Schema.Struct({ name: Schema.String, arguments: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
})

/** One message of the conversation. */
export const OllamaMessage = Schema.Struct({
  role: Schema.Literal("system", "user", "assistant", "tool"),
  content: optionalNullable(Schema.String),
  thinking: optionalNullable(Schema.String),
  images: optionalNullable(Schema.Array(Schema.Unknown)),
  tool_calls: optionalNullable(Schema.Array(OllamaToolCall)),
  tool_name: optionalNullable(Schema.String)
})
export type OllamaMessage = typeof OllamaMessage.Type

/** The `options` easyai reads (Ollama's names); the others are accepted and ignored. */
export const OllamaOptions = Schema.Struct({
  temperature: optionalNullable(Schema.Number.pipe(Schema.between(0, 5))),
  top_p: optionalNullable(Schema.Number.pipe(Schema.between(0, 1))),
  top_k: optionalNullable(Schema.Int.pipe(Schema.nonNegative())),
  min_p: optionalNullable(Schema.Number.pipe(Schema.between(0, 1))),
  num_predict: optionalNullable(Schema.Int),
  stop: optionalNullable(Schema.Array(Schema.String))
})

/** `format`: `"json"`, or a JSON Schema. */
export const OllamaFormat = Schema.Union(Schema.Literal("json", ""), Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** A tool the client offers, in OpenAI's function shape. */
export const OllamaTool = Schema.Struct({
  type: optionalNullable(Schema.String),
  function: Schema.Struct({
    name: Schema.String,
    description: optionalNullable(Schema.String),
    parameters: optionalNullable(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  })
})

/** The request of `POST /api/chat`. */
export const OllamaChatRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(OllamaMessage).pipe(Schema.minItems(1, { message: () => "messages must not be empty" })),
  tools: optionalNullable(Schema.Array(OllamaTool)),
  format: optionalNullable(OllamaFormat),
  options: optionalNullable(OllamaOptions),
  /** Ollama streams unless told not to. */
  stream: optionalNullable(Schema.Boolean),
  keep_alive: optionalNullable(Schema.Union(Schema.String, Schema.Number)),
  think: optionalNullable(Schema.Unknown)
})
export type OllamaChatRequest = typeof OllamaChatRequest.Type

/** The request of `POST /api/generate`: one prompt, an optional system text. */
export const OllamaGenerateRequest = Schema.Struct({
  model: Schema.String,
  prompt: Schema.String,
  system: optionalNullable(Schema.String),
  format: optionalNullable(OllamaFormat),
  options: optionalNullable(OllamaOptions),
  stream: optionalNullable(Schema.Boolean),
  keep_alive: optionalNullable(Schema.Union(Schema.String, Schema.Number)),
  raw: optionalNullable(Schema.Boolean),
  think: optionalNullable(Schema.Unknown)
})
export type OllamaGenerateRequest = typeof OllamaGenerateRequest.Type

/** The counts that end an answer, in Ollama's names (durations in nanoseconds). */
export interface OllamaCounts {
  readonly done: true
  readonly done_reason: "stop" | "length"
  readonly total_duration: number
  readonly load_duration: number
  readonly prompt_eval_count: number
  readonly prompt_eval_duration: number
  readonly eval_count: number
  readonly eval_duration: number
}
