/**
 * OpenAI's legacy completions protocol (`POST /v1/completions`): a raw
 * prompt continued with no chat template. The server decodes requests and
 * types what it writes with these Schemas; a client decodes them back.
 *
 * @module
 */
import { Schema } from "effect"
import { optionalNullable } from "../json.js"

/** The request, as far as the server reads it; the fields it cannot honour are read so it can refuse them by name. */
export const CompletionsRequest = Schema.Struct({
  model: optionalNullable(Schema.String),
  /** One prompt: a string, or a list holding one string (a longer list asks for several completions). */
  prompt: Schema.Union(Schema.String, Schema.Array(Schema.String)),
  max_tokens: optionalNullable(Schema.Int.pipe(Schema.positive())),
  temperature: optionalNullable(Schema.Number.pipe(Schema.between(0, 5))),
  top_p: optionalNullable(Schema.Number.pipe(Schema.between(0, 1))),
  stop: optionalNullable(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  seed: optionalNullable(Schema.Int),
  stream: optionalNullable(Schema.Boolean),
  stream_options: optionalNullable(Schema.Struct({ include_usage: optionalNullable(Schema.Boolean) })),
  /** Whether the prompt comes back before its continuation. */
  echo: optionalNullable(Schema.Boolean),
  n: optionalNullable(Schema.Int),
  best_of: optionalNullable(Schema.Int),
  logprobs: optionalNullable(Schema.Unknown),
  suffix: optionalNullable(Schema.String)
})
export type CompletionsRequest = typeof CompletionsRequest.Type

/** Why a completion ended. */
export const CompletionFinishReason = Schema.NullOr(Schema.Literal("stop", "length"))

/** One completion of a response or a chunk. */
export const CompletionChoice = Schema.Struct({
  text: Schema.String,
  index: Schema.Int,
  logprobs: Schema.Null,
  finish_reason: CompletionFinishReason
})

/** Token counts. */
export const CompletionUsage = Schema.Struct({
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  total_tokens: Schema.Int
})

/** A whole response, and (with `choices` holding a piece of the text) each chunk of a streamed one. */
export const TextCompletion = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("text_completion"),
  created: Schema.Int,
  model: Schema.String,
  choices: Schema.Array(CompletionChoice),
  usage: optionalNullable(CompletionUsage)
})
export type TextCompletion = typeof TextCompletion.Type
