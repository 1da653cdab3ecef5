/**
 * Ollama's embeddings protocol (`POST /api/embed`), as far as easyai speaks
 * it: one vector per input text, with the counts Ollama's clients read.
 *
 * @module
 */
import { Schema } from "effect"
import { optionalNullable } from "../json.js"
import { EmbeddingInput } from "../openai/Embeddings.js"

/** The request. `truncate`, `options` and `keep_alive` are accepted and ignored: the served model reads whole texts. */
export const OllamaEmbedRequest = Schema.Struct({
  model: optionalNullable(Schema.String),
  input: EmbeddingInput,
  truncate: optionalNullable(Schema.Boolean),
  dimensions: optionalNullable(Schema.Int),
  options: optionalNullable(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  keep_alive: optionalNullable(Schema.Union(Schema.String, Schema.Number))
})
export type OllamaEmbedRequest = typeof OllamaEmbedRequest.Type

/** The response: the vectors in input order, the tokens read, durations in nanoseconds. */
export const OllamaEmbedResponse = Schema.Struct({
  model: Schema.String,
  embeddings: Schema.Array(Schema.Array(Schema.Number)),
  total_duration: Schema.Int,
  load_duration: Schema.Int,
  prompt_eval_count: Schema.Int
})
export type OllamaEmbedResponse = typeof OllamaEmbedResponse.Type
