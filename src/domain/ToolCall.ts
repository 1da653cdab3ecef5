/**
 * What crosses the tool boundary: the call a model makes, the result it gets
 * back, and the spec it was shown.
 *
 * @module
 */
import { Schema } from "effect"

/**
 * One tool call as the model wrote it. `arguments` is the raw JSON text,
 * kept verbatim: decoding (and forgiving small-model mistakes) is the tool's
 * job, and the raw text is what goes back into the history.
 */
export class ToolCall extends Schema.Class<ToolCall>("ToolCall")({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.String
}) {}

/**
 * A fresh tool-call id (`call_` and 16 hex digits), for backends whose model
 * or server gives none.
 */
export const newToolCallId = (): string => `call_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`

/**
 * What a tool call produced. An error result is data, not a failure: the
 * model reads `content` and gets the chance to correct its next call.
 */
export class ToolResult extends Schema.Class<ToolResult>("ToolResult")({
  content: Schema.String,
  isError: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** The result as data, matching the tool's `outputSchema` (MCP `structuredContent`); `content` says the same in text. */
  structured: Schema.optional(Schema.Unknown)
}) {
  /** A successful result. */
  static ok(content: string): ToolResult {
    return new ToolResult({ content, isError: false })
  }
  /** An error result whose text teaches the model the correct call. */
  static error(content: string): ToolResult {
    return new ToolResult({ content, isError: true })
  }
  /** A successful result carrying data for clients that read it, and `content` for the model. */
  static data(structured: unknown, content: string = JSON.stringify(structured)): ToolResult {
    return new ToolResult({ content, isError: false, structured })
  }
}

/** A JSON Schema object, as shown to the model and sent on the wire. */
export const JsonSchema = Schema.Record({ key: Schema.String, value: Schema.Unknown })
/** A JSON Schema object, as shown to the model and sent on the wire. */
export type JsonSchema = typeof JsonSchema.Type

/**
 * What a tool does to the world, as MCP annotates tools. Hints only: a
 * client must not trust them from a server it does not trust.
 */
export const ToolAnnotations = Schema.Struct({
  /** The tool only reads; it changes nothing. */
  readOnly: Schema.optional(Schema.Boolean),
  /** The tool may destroy or overwrite data (meaningful when not read-only). */
  destructive: Schema.optional(Schema.Boolean),
  /** Calling it again with the same arguments has no further effect. */
  idempotent: Schema.optional(Schema.Boolean),
  /** The tool reaches outside this machine (the web, other services). */
  openWorld: Schema.optional(Schema.Boolean)
})
/** What a tool does to the world. */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * A tool as the model (or a remote client, or an MCP peer) sees it.
 *
 * - `description`: the full manual, shown by `tool_lookup` and MCP `tools/list`.
 * - `shortDescription`: the one-line trigger used on the wire and in the
 *   system prompt's active-tools list.
 * - `systemAddendum`: prompt-level guidance the tool ships itself, spliced
 *   into the system prompt when the tool is registered.
 */
export class ToolSpec extends Schema.Class<ToolSpec>("ToolSpec")({
  name: Schema.String,
  description: Schema.String,
  shortDescription: Schema.String,
  parameters: JsonSchema,
  systemAddendum: Schema.optional(Schema.String),
  /** Hints about what a call does, for clients that decide how to confirm it (MCP tool annotations). */
  annotations: Schema.optional(ToolAnnotations),
  /** The JSON Schema of the tool's structured result, when it returns one. */
  outputSchema: Schema.optional(JsonSchema)
}) {}


/**
 * The one-line description of a tool: the explicit short description, else
 * the first non-empty line of the full description.
 */
export const wireDescription = (description: string, shortDescription?: string): string => {
  if (shortDescription !== undefined && shortDescription.trim() !== "") return shortDescription.trim()
  for (const line of description.split("\n")) {
    const trimmed = line.trim()
    if (trimmed !== "") return trimmed
  }
  return ""
}
