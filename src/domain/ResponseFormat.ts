/**
 * The shape a model's answer must take: any JSON object, or JSON valid
 * against a schema. A local engine constrains its sampling with a grammar
 * built from it; a remote one sends OpenAI's `response_format`.
 *
 * @module
 */
import type { JsonSchema } from "./ToolCall.js"

/** The answer is one JSON value, an object. */
export interface JsonObjectFormat {
  readonly type: "json_object"
}

/** The answer is JSON valid against `schema`. */
export interface JsonSchemaFormat {
  readonly type: "json_schema"
  /** A name for the schema, as OpenAI's `response_format.json_schema.name` (letters, digits, `_`, `-`). */
  readonly name: string
  readonly schema: JsonSchema
}

/** The shape of an answer; free text when a request has none. */
export type ResponseFormat = JsonObjectFormat | JsonSchemaFormat
