/**
 * OpenAI's embeddings protocol (`POST /v1/embeddings`), as the server reads
 * and writes it and the client sends and reads it.
 *
 * @module
 */
import { Schema } from "effect"
import { optionalNullable } from "../json.js"

/** The most texts one request may embed. */
export const maxEmbeddingInputs = 256

/** What to embed: one text, or a list of 1 to {@link maxEmbeddingInputs} (Ollama's `/api/embed` takes the same). */
export const EmbeddingInput = Schema.Union(
  Schema.String,
  Schema.Array(Schema.String).pipe(
    Schema.minItems(1, { message: () => "input must not be empty" }),
    Schema.maxItems(maxEmbeddingInputs, { message: () => `input holds at most ${maxEmbeddingInputs} texts` })
  )
)

/** The texts of an {@link EmbeddingInput}, in order. */
export const inputTexts = (input: typeof EmbeddingInput.Type): ReadonlyArray<string> =>
  typeof input === "string" ? [input] : input

/** The request: one text or a list of them, and how the vectors are written. */
export const EmbeddingsRequest = Schema.Struct({
  model: optionalNullable(Schema.String),
  input: EmbeddingInput,
  /** `float` (the default): arrays of numbers; `base64`: little-endian float32 bytes. */
  encoding_format: optionalNullable(Schema.Literal("float", "base64")),
  dimensions: optionalNullable(Schema.Int),
  user: optionalNullable(Schema.String)
})
export type EmbeddingsRequest = typeof EmbeddingsRequest.Type

/** One vector of a response. */
export const EmbeddingItem = Schema.Struct({
  object: Schema.Literal("embedding"),
  index: Schema.Int,
  embedding: Schema.Union(Schema.Array(Schema.Number), Schema.String)
})

/** The response: one vector per input, in order. */
export const EmbeddingList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(EmbeddingItem),
  model: Schema.String,
  usage: optionalNullable(Schema.Struct({ prompt_tokens: Schema.Int, total_tokens: Schema.Int }))
})
export type EmbeddingList = typeof EmbeddingList.Type

/** A vector as `encoding_format: "base64"` writes it: its float32 values, little-endian, in base64. */
export const vectorToBase64 = (vector: ReadonlyArray<number>): string => {
  const bytes = Buffer.alloc(vector.length * 4)
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4))
  return bytes.toString("base64")
}

/** A vector from its `base64` form. */
export const vectorFromBase64 = (text: string): ReadonlyArray<number> => {
  const bytes = Buffer.from(text, "base64")
  return Array.from({ length: Math.floor(bytes.length / 4) }, (_, index) => bytes.readFloatLE(index * 4))
}
