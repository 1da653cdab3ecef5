/**
 * Tool parameters written with any Standard Schema library (zod 4, valibot,
 * ArkType, …): how to tell such a schema apart, the JSON Schema the model
 * is shown (from the library's own Standard JSON Schema converter), and its
 * validation issues as the one-line reasons a rejected call teaches with.
 *
 * @module
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec"
import { Effect } from "effect"
import type { JsonSchema } from "./ToolCall.js"

/** Whether `value` is a Standard Schema (it has a `~standard` block with a `validate` function). */
export const isStandardSchema = (value: unknown): value is StandardSchemaV1 => {
  if (typeof value !== "object" && typeof value !== "function") return false
  if (value === null || !("~standard" in value)) return false
  const standard: unknown = value["~standard"]
  return typeof standard === "object" && standard !== null && "validate" in standard &&
    typeof standard.validate === "function"
}

const hasJsonSchema = (schema: StandardSchemaV1): schema is StandardSchemaV1 & StandardJSONSchemaV1 => {
  const standard: unknown = schema["~standard"]
  return typeof standard === "object" && standard !== null && "jsonSchema" in standard &&
    typeof standard.jsonSchema === "object" && standard.jsonSchema !== null
}

/**
 * The JSON Schema of what the model must write (the schema's input side),
 * as its library converts it; `undefined` when the library cannot. The
 * `$schema` keyword is dropped: the wire carries the schema, not its dialect.
 */
export const standardJsonSchema = (schema: StandardSchemaV1): JsonSchema | undefined => {
  if (!hasJsonSchema(schema)) return undefined
  const { $schema: _dialect, ...rest } = schema["~standard"].jsonSchema.input({ target: "draft-07" })
  return rest
}

const pathText = (path: StandardSchemaV1.Issue["path"]): string =>
  (path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".")

/** One line per issue: `path: message`, or the message alone for the whole object. */
export const explainIssues = (issues: ReadonlyArray<StandardSchemaV1.Issue>): string =>
  issues.map((issue) => {
    const path = pathText(issue.path)
    return path === "" ? issue.message : `${path}: ${issue.message}`
  }).join("; ")

/**
 * Validates `value` (a schema may validate asynchronously); fails with the
 * explained issues. A validator that throws is a defect, as a throwing
 * Effect Schema transformation would be.
 */
export const validateStandard = <A>(schema: StandardSchemaV1<unknown, A>, value: unknown): Effect.Effect<A, string> =>
  Effect.flatMap(
    Effect.promise(async () => schema["~standard"].validate(value)),
    (result) => result.issues === undefined ? Effect.succeed(result.value) : Effect.fail(explainIssues(result.issues))
  )
