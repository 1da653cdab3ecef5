/**
 * Answers in a shape: the response format that asks a model for JSON of a
 * schema, and the decoding of its answer into the schema's type. The schema
 * is an Effect Schema or any Standard Schema (zod 4, valibot, …) that can
 * describe itself as JSON Schema.
 *
 * @module
 */
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { Effect, Either, ParseResult, Schema } from "effect"
import { OutputDecodeError } from "./errors.js"
import { parseJson } from "./json.js"
import type { JsonSchemaFormat } from "./ResponseFormat.js"
import { isStandardSchema, standardJsonSchema, validateStandard } from "./standardSchema.js"
import { parametersJsonSchema } from "./Tool.js"

/** The shape of an answer: an Effect Schema (encoded as `I`) or a Standard Schema. */
export type OutputSchema<A, I = A> = Schema.Schema<A, I, never> | StandardSchemaV1<unknown, A>

/** The name the format carries on the wire, where OpenAI wants one. */
const formatName = "answer"

/** The response format asking for JSON of `output`'s shape. */
export const outputFormat = <A, I>(output: OutputSchema<A, I>): JsonSchemaFormat => {
  if (!isStandardSchema(output)) return { type: "json_schema", name: formatName, schema: parametersJsonSchema(output) }
  const schema = standardJsonSchema(output)
  if (schema === undefined) {
    throw new TypeError(`the output schema's library (${output["~standard"].vendor}) cannot describe it as JSON Schema`)
  }
  return { type: "json_schema", name: formatName, schema }
}

/** The answer `text` as a value of `output`'s type, or why it is not one. */
export const decodeOutput = <A, I>(output: OutputSchema<A, I>, text: string): Effect.Effect<A, OutputDecodeError> => {
  const parsed = parseJson(text)
  if (Either.isLeft(parsed)) return Effect.fail(new OutputDecodeError({ text, reason: "it is not JSON" }))
  const decoded: Effect.Effect<A, string> = isStandardSchema(output)
    ? validateStandard(output, parsed.right)
    : Effect.mapError(Schema.decodeUnknown(output)(parsed.right), (error) => ParseResult.TreeFormatter.formatErrorSync(error))
  return Effect.mapError(decoded, (reason) => new OutputDecodeError({ text, reason }))
}
