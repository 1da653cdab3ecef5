/**
 * Reading the arguments a model wrote for a tool: forgiving where small
 * models predictably go off-spec, strict everywhere else, and teaching when
 * a call is rejected.
 *
 * Forgiven, guided by the tool's JSON Schema (so tools whose schema came from
 * a manifest or an MCP server benefit too):
 * - a number or boolean written as a string (`"42"`, `"true"`);
 * - an array or object written as a JSON string (`"[1,2]"`);
 * - the whole argument object written as a JSON string;
 * - empty arguments for a tool that takes none.
 *
 * @module
 */
import { Either } from "effect"
import type { JsonSchema } from "./ToolCall.js"
import { isObject, parseJson } from "./json.js"

/** A parsed JSON object. */
export type JsonObject = { readonly [key: string]: unknown }


/**
 * Parses the raw argument text into a JSON object. Blank text is `{}`, and an
 * object that was itself JSON-encoded into a string is unwrapped.
 */
export const parseArgumentObject = (raw: string): Either.Either<JsonObject, string> => {
  if (raw.trim() === "") return Either.right({})
  return Either.flatMap(parseJson(raw), (value) => {
    const unwrapped = typeof value === "string" ? Either.getOrElse(parseJson(value), () => value) : value
    return isObject(unwrapped)
      ? Either.right(unwrapped)
      : Either.left(`arguments must be a JSON object, got ${describeJsonType(unwrapped)}`)
  })
}

/** `string`, `number`, `array`, `null`… as a model would understand it. */
export const describeJsonType = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value

const schemaTypes = (schema: JsonObject): ReadonlyArray<string> => {
  const type = schema["type"]
  if (typeof type === "string") return [type]
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string")
  if (isObject(schema["properties"])) return ["object"]
  return []
}

const matchesType = (value: unknown, type: string): boolean => {
  switch (type) {
    case "string":
      return typeof value === "string"
    case "integer":
      return typeof value === "number" && Number.isInteger(value)
    case "number":
      return typeof value === "number"
    case "boolean":
      return typeof value === "boolean"
    case "array":
      return Array.isArray(value)
    case "object":
      return isObject(value)
    case "null":
      return value === null
    default:
      return true
  }
}

/** A decimal number literal: optional sign, digits, optional fraction and exponent. */
const isNumberLiteral = (text: string): boolean => text.trim() !== "" && Number.isFinite(Number(text.trim()))

/** Converts a string into `type` where the string plainly spells a value of it. */
const fromString = (text: string, type: string): unknown => {
  switch (type) {
    case "integer":
    case "number":
      return isNumberLiteral(text) ? Number(text.trim()) : text
    case "boolean": {
      const word = text.trim().toLowerCase()
      return word === "true" ? true : word === "false" ? false : text
    }
    case "array":
    case "object":
      return Either.getOrElse(parseJson(text), () => text)
    default:
      return text
  }
}

const subSchemas = (schema: JsonObject, key: "anyOf" | "oneOf"): ReadonlyArray<JsonObject> => {
  const list = schema[key]
  return Array.isArray(list) ? list.filter(isObject) : []
}

/**
 * Returns `value` with the forgivable mismatches against `schema` repaired.
 * Anything that does not plainly spell the expected type is left as it is,
 * for strict validation to reject with a clear message.
 */
export const coerceToSchema = (value: unknown, schema: JsonSchema): unknown => {
  const alternatives = [...subSchemas(schema, "anyOf"), ...subSchemas(schema, "oneOf")]
  if (alternatives.length > 0) {
    for (const alternative of alternatives) {
      if (schemaTypes(alternative).some((type) => matchesType(value, type))) return coerceToSchema(value, alternative)
    }
    for (const alternative of alternatives) {
      const coerced = coerceToSchema(value, alternative)
      if (coerced !== value) return coerced
    }
    return value
  }
  const types = schemaTypes(schema)
  if (types.length === 0 || types.some((type) => matchesType(value, type))) return coerceChildren(value, schema)
  if (typeof value !== "string") return value
  for (const type of types) {
    const converted = fromString(value, type)
    if (matchesType(converted, type)) return coerceChildren(converted, schema)
  }
  return value
}

/** {@link coerceToSchema} for a whole argument object, which stays an object. */
export const coerceArguments = (args: JsonObject, schema: JsonSchema): JsonObject => {
  const coerced = coerceToSchema(args, schema)
  return isObject(coerced) ? coerced : args
}

const coerceChildren = (value: unknown, schema: JsonObject): unknown => {
  const properties = schema["properties"]
  if (isObject(value) && isObject(properties)) {
    const out: Record<string, unknown> = { ...value }
    for (const [key, child] of Object.entries(properties)) {
      if (key in out && isObject(child)) out[key] = coerceToSchema(out[key], child)
    }
    return out
  }
  const items = schema["items"]
  if (Array.isArray(value) && isObject(items)) return value.map((item) => coerceToSchema(item, items))
  return value
}

/** The names of the required properties of an object schema. */
export const requiredProperties = (schema: JsonSchema): ReadonlyArray<string> => {
  const required = schema["required"]
  return Array.isArray(required) ? required.filter((name): name is string => typeof name === "string") : []
}

/** One `name (type, required|optional)` summary per declared parameter. */
export const describeParameters = (schema: JsonSchema): string => {
  const properties = schema["properties"]
  if (!isObject(properties) || Object.keys(properties).length === 0) return "none"
  const required = new Set(requiredProperties(schema))
  return Object.entries(properties)
    .map(([name, child]) => {
      const types = isObject(child) ? schemaTypes(child) : []
      const enumValues = isObject(child) && Array.isArray(child["enum"]) ? child["enum"] : undefined
      const type = enumValues !== undefined
        ? `one of ${enumValues.map((v) => JSON.stringify(v)).join(" | ")}`
        : types.length > 0
        ? types.join(" | ")
        : "any"
      return `${name} (${type}, ${required.has(name) ? "required" : "optional"})`
    })
    .join(", ")
}

const placeholderFor = (name: string, schema: JsonObject): unknown => {
  const enumValues = schema["enum"]
  if (Array.isArray(enumValues) && enumValues.length > 0) return enumValues[0]
  if ("default" in schema) return schema["default"]
  const alternatives = [...subSchemas(schema, "anyOf"), ...subSchemas(schema, "oneOf")]
  const first = alternatives[0]
  if (first !== undefined) return placeholderFor(name, first)
  switch (schemaTypes(schema)[0]) {
    case "integer":
    case "number":
      return 1
    case "boolean":
      return true
    case "array":
      return []
    case "object":
      return exampleArguments(schema)
    default:
      return `<${name}>`
  }
}

/** An example argument object with a placeholder for every required parameter. */
export const exampleArguments = (schema: JsonSchema): JsonObject => {
  const properties = schema["properties"]
  if (!isObject(properties)) return {}
  const example: Record<string, unknown> = {}
  for (const name of requiredProperties(schema)) {
    const child = properties[name]
    example[name] = placeholderFor(name, isObject(child) ? child : {})
  }
  return example
}

/** The sub-schema at `path` (object properties and array items), if the schema declares one. */
export const schemaAt = (schema: JsonSchema, path: ReadonlyArray<PropertyKey>): JsonObject | undefined => {
  let current: JsonObject | undefined = schema
  for (const key of path) {
    if (current === undefined) return undefined
    const properties: unknown = current["properties"]
    const items: unknown = current["items"]
    const next: unknown = typeof key === "number" ? items : isObject(properties) ? properties[String(key)] : undefined
    current = isObject(next) ? next : undefined
  }
  return current
}

/** The value at `path` in the model's arguments. */
export const valueAt = (value: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let current = value
  for (const key of path) {
    if (Array.isArray(current) && typeof key === "number") current = current[key]
    else if (isObject(current)) current = current[String(key)]
    else return undefined
  }
  return current
}

const range = (schema: JsonObject, low: string, high: string): string => {
  const min = schema[low]
  const max = schema[high]
  if (typeof min === "number" && typeof max === "number") return ` from ${min} to ${max}`
  if (typeof min === "number") return ` of at least ${min}`
  if (typeof max === "number") return ` of at most ${max}`
  return ""
}

/** What a value must be, in words a model understands: "an integer from 1 to 300". */
export const describeExpected = (schema: JsonObject): string => {
  const enumValues = schema["enum"]
  if (Array.isArray(enumValues)) return `one of ${enumValues.map((v) => JSON.stringify(v)).join(" | ")}`
  if ("const" in schema) return JSON.stringify(schema["const"])
  const alternatives = [...subSchemas(schema, "anyOf"), ...subSchemas(schema, "oneOf")]
  if (alternatives.length > 0) return alternatives.map(describeExpected).join(" or ")
  switch (schemaTypes(schema)[0]) {
    case "integer":
      return `an integer${range(schema, "minimum", "maximum")}`
    case "number":
      return `a number${range(schema, "minimum", "maximum")}`
    case "string": {
      const length = range(schema, "minLength", "maxLength")
      return length === "" ? "a string" : `a string with a length${length}`
    }
    case "boolean":
      return "true or false"
    case "array":
      return "an array"
    case "object":
      return "an object"
    case "null":
      return "null"
    default:
      return "a valid value"
  }
}
