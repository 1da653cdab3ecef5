/**
 * Reducing a JSON Schema to the subset node-llama-cpp turns into a grammar.
 *
 * Its grammar builder ignores what it does not know and, worse, compiles a
 * schema without a usable `type` into "null only" — so `anyOf` (which Effect
 * Schema emits for unions) must become `oneOf`, and a schema that accepts
 * anything must say which types.
 *
 * @module
 */
import type { GbnfJsonSchema } from "node-llama-cpp"
import { isObject } from "../../domain/json.js"
import type { JsonSchema } from "../../domain/ToolCall.js"

/** A JSON Schema node as plain data. */
export type Json = { readonly [key: string]: unknown }

/** Keywords copied as they are. */
const passThrough = [
  "type",
  "enum",
  "const",
  "description",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "format",
  "$ref"
] as const

const anyValue: Json = { type: ["string", "number", "boolean", "null"] }

const reduce = (schema: Json): Json => {
  const out: Record<string, unknown> = {}
  for (const key of passThrough) if (key in schema) out[key] = schema[key]
  const alternatives = [schema["anyOf"], schema["oneOf"]].flatMap((list) => (Array.isArray(list) ? list : []))
  if (alternatives.length > 0) out["oneOf"] = alternatives.filter(isObject).map(reduce)
  const properties = schema["properties"]
  if (isObject(properties)) {
    out["properties"] = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, isObject(child) ? reduce(child) : anyValue])
    )
    if (!("type" in out)) out["type"] = "object"
  }
  const additional = schema["additionalProperties"]
  if (typeof additional === "boolean") out["additionalProperties"] = additional
  else if (isObject(additional)) out["additionalProperties"] = reduce(additional)
  const items = schema["items"]
  if (isObject(items)) out["items"] = reduce(items)
  const defs = schema["$defs"]
  if (isObject(defs)) {
    out["$defs"] = Object.fromEntries(
      Object.entries(defs).map(([name, child]) => [name, isObject(child) ? reduce(child) : anyValue])
    )
  }
  const usable = ["type", "enum", "const", "oneOf", "$ref"].some((key) => key in out)
  return usable ? out : { ...out, ...anyValue }
}

/** A tool's parameter schema reduced to the grammar subset, still as plain data (to be reshaped further). */
export const reduceSchema = (schema: JsonSchema): Json => reduce(schema)

/** A reduced schema as node-llama-cpp's type. */
export const asGbnfSchema = (schema: Json): GbnfJsonSchema =>
  schema as GbnfJsonSchema // boundary: node-llama-cpp validates the schema when it builds the grammar

/** The grammar-ready form of a tool's parameter schema. */
export const toGbnfSchema = (schema: JsonSchema): GbnfJsonSchema => asGbnfSchema(reduce(schema))
