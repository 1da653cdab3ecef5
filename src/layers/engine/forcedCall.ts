/**
 * The forced tool call: the grammar that makes the model write exactly one
 * schema-valid call, and the reading of what it wrote.
 *
 * A grammar guarantees the *shape* of the call, not that it ends: a string
 * value may go on until the token budget runs out, and a call cut there is
 * not a call. So every free string of a forced call gets a maximum length
 * derived from the budget the generation has:
 *
 *   bound = ⌊(budget − skeleton) / (4 × strings)⌋, at most {@link maxForcedString}, at least 0
 *
 * where `budget` is the generation's token limit (the request's max tokens,
 * capped by the room left in the context), `skeleton` the characters of the
 * call with every string empty, laid out the widest way the grammar allows
 * (a newline and indentation before every key), plus the closing newlines,
 * and `strings` the number of free string values in the tool's schema.
 * Characters are counted, not the tokenizer's tokens, on purpose: under a
 * grammar a model often picks shorter tokens than the tokenizer would, but
 * never a token shorter than one character, so the (ASCII) skeleton costs at
 * most its length in tokens, and one string character at most four (a
 * 4-byte UTF-8 character spelled as byte tokens). So a call whose strings
 * keep to the bound fits its budget. The price is a tighter bound than a
 * model writing plain text with long tokens needs: a tool that takes long
 * strings needs a larger budget (or none, and then the room left in the
 * context is the budget). `\u` escapes (six characters for one), an array
 * of strings that repeats a slot and a free-form object can still cost
 * more: the bound makes running off unlikely, not impossible, and a call
 * still cut short ends the turn with finish reason `length` and no call.
 *
 * @module
 */
import { Either } from "effect"
import type { GbnfJsonSchema } from "node-llama-cpp"
import { ModelError } from "../../domain/errors.js"
import { isObject, parseJson } from "../../domain/json.js"
import { newToolCallId, ToolCall, type ToolSpec } from "../../domain/ToolCall.js"
import type { ChatRequest } from "../../services/ChatModel.js"
import { asGbnfSchema, type Json, reduceSchema } from "./gbnfSchema.js"

/**
 * The longest string a forced call may hold whatever its budget: the
 * grammar expands a repetition bound into that many rules, so it must stay
 * finite, and no tool argument needs more in one generation.
 */
export const maxForcedString = 4096

/** Whether a schema node is a value the grammar lets run free: a string with no enum, const or format. */
const typeHasString = (schema: Json): boolean => {
  const type = schema["type"]
  return type === "string" || (Array.isArray(type) && type.includes("string"))
}

const isFreeString = (schema: Json): boolean =>
  typeHasString(schema) && !("enum" in schema) && !("const" in schema) && !("format" in schema)

/** The schema nodes below `schema` (properties, items, alternatives, definitions). */
const children = (schema: Json): ReadonlyArray<Json> => {
  const out: Array<Json> = []
  for (const key of ["properties", "$defs"] as const) {
    const map = schema[key]
    if (isObject(map)) for (const child of Object.values(map)) if (isObject(child)) out.push(child)
  }
  for (const key of ["items", "additionalProperties"] as const) {
    const child = schema[key]
    if (isObject(child)) out.push(child)
  }
  const alternatives = schema["oneOf"]
  if (Array.isArray(alternatives)) for (const child of alternatives) if (isObject(child)) out.push(child)
  return out
}

/** How many free string values a schema has (each alternative and each array's item counted once). */
export const stringSlots = (schema: Json): number =>
  (isFreeString(schema) ? 1 : 0) + children(schema).reduce((sum, child) => sum + stringSlots(child), 0)

/** Applies `reshape` to every schema node below `schema`, keeping the rest as it is. */
const mapChildren = (schema: Json, reshape: (child: Json) => Json): Json => {
  const out: Record<string, unknown> = { ...schema }
  for (const key of ["properties", "$defs"] as const) {
    const map = schema[key]
    if (isObject(map)) {
      out[key] = Object.fromEntries(Object.entries(map).map(([name, child]) => [name, isObject(child) ? reshape(child) : child]))
    }
  }
  for (const key of ["items", "additionalProperties"] as const) {
    const child = schema[key]
    if (isObject(child)) out[key] = reshape(child)
  }
  const alternatives = schema["oneOf"]
  if (Array.isArray(alternatives)) out["oneOf"] = alternatives.map((child) => (isObject(child) ? reshape(child) : child))
  return out
}

/**
 * `schema` with every free string at most `bound` characters long. The
 * grammar builder reads `maxLength` only on a schema whose type is exactly
 * `"string"`, so a type list that includes it becomes a `oneOf` of the
 * bounded string and the other types.
 */
export const boundStrings = (schema: Json, bound: number): Json => {
  const inner = mapChildren(schema, (child) => boundStrings(child, bound))
  if (!isFreeString(inner)) return inner
  const own = inner["maxLength"]
  const maxLength = typeof own === "number" ? Math.min(own, bound) : bound
  const type = inner["type"]
  if (type === "string") return { ...inner, maxLength }
  if (!Array.isArray(type) || "oneOf" in inner) return inner
  const others = type.filter((name) => name !== "string")
  const minLength = inner["minLength"]
  const rest = Object.fromEntries(Object.entries(inner).filter(([key]) => !["type", "minLength", "maxLength"].includes(key)))
  return {
    ...rest,
    oneOf: [{ type: "string", maxLength, ...(minLength === undefined ? {} : { minLength }) }, { type: others }]
  }
}

/** The smallest value the grammar can produce for a schema, near enough: its strings empty. */
const skeletonValue = (schema: Json): unknown => {
  if ("const" in schema) return schema["const"]
  const choices = schema["enum"]
  if (Array.isArray(choices) && choices.length > 0) return choices[0]
  const properties = schema["properties"]
  if (isObject(properties)) {
    return Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, isObject(child) ? skeletonValue(child) : ""]))
  }
  return ""
}

/** node-llama-cpp's grammar may put a newline and this many spaces per level before every key. */
const scopePadSpaces = 4

/** The newlines the grammar ends every output with (node-llama-cpp stops generating on them). */
const closingNewlines = 4

/** The most tokens one character of a string can cost: a 4-byte UTF-8 character spelled as byte tokens. */
const tokensPerChar = 4

/** The string bound of one tool's forced call, from the generation's token budget (see the module's rule). */
export const stringBound = (name: string, args: Json, budget: number): number => {
  const skeleton = JSON.stringify({ name, arguments: skeletonValue(args) }, null, scopePadSpaces).length + closingNewlines
  const share = Math.floor((budget - skeleton) / (tokensPerChar * Math.max(1, stringSlots(args))))
  return Math.min(maxForcedString, Math.max(0, share))
}

/** The grammar schema of "one call to one of these tools", every string bounded to fit `budget` tokens. */
export const callSchema = (tools: ReadonlyArray<ToolSpec>, budget: number): GbnfJsonSchema => {
  const one = (tool: ToolSpec): Json => {
    const args = reduceSchema(tool.parameters)
    return {
      type: "object",
      properties: { name: { const: tool.name }, arguments: boundStrings(args, stringBound(tool.name, args, budget)) }
    }
  }
  return asGbnfSchema(tools.length === 1 && tools[0] !== undefined ? one(tools[0]) : { oneOf: tools.map(one) })
}

/** The tools a forced call may pick from, or an error when the request names one it does not offer. */
export const forcedTools = (request: ChatRequest): ReadonlyArray<ToolSpec> | ModelError => {
  const choice = request.toolChoice
  if (typeof choice !== "object") return request.tools
  const named = request.tools.filter((tool) => tool.name === choice.name)
  return named.length > 0
    ? named
    : new ModelError({ reason: "InvalidRequest", detail: `toolChoice names "${choice.name}", which is not among the request's tools` })
}

/**
 * The forced output as a tool call, or why it is not one: the text ends
 * before the grammar's last character (the generation stopped early) or,
 * which the grammar should rule out, it is not a call.
 *
 * The text is read as JSON, not through the grammar's own `parse`: that
 * validator measures a string in UTF-16 code units where the grammar counts
 * characters, so a call whose string holds a character outside the Basic
 * Multilingual Plane (an emoji is one character, two code units) was
 * refused although the grammar had let it through. The tool checks its
 * arguments against its own schema when it runs.
 */
export const readForcedCall = (text: string): Either.Either<ToolCall, string> =>
  Either.flatMap(parseJson(text), (parsed) =>
    isObject(parsed) && typeof parsed["name"] === "string"
      ? Either.right(new ToolCall({ id: newToolCallId(), name: parsed["name"], arguments: JSON.stringify(parsed["arguments"] ?? {}) }))
      : Either.left("the call has no name"))
