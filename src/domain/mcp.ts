/**
 * The Model Context Protocol as both ends of easyai speak it: JSON-RPC 2.0
 * envelopes, the protocol versions, the shapes of `initialize`,
 * `tools/list` and `tools/call`, and how a remote tool is named locally.
 *
 * @module
 */
import { Schema } from "effect"

/** The protocol versions spoken, newest first. */
export const protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const
/** A protocol version spoken. */
export type ProtocolVersion = typeof protocolVersions[number]
/** The newest protocol version. */
export const latestProtocolVersion: ProtocolVersion = protocolVersions[0]

/** Whether `version` is one this side speaks. */
export const isSupportedVersion = (version: string): version is ProtocolVersion =>
  protocolVersions.some((known) => known === version)

/** JSON-RPC 2.0 error codes. */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Implementation-defined (JSON-RPC reserves -32000 to -32099 for servers): too many requests run already. */
  ServerBusy: -32000
} as const

/** A request or notification id: a string or a number (`null` only in error replies to unreadable requests). */
export const JsonRpcId = Schema.Union(Schema.String, Schema.Number)
/** A request id. */
export type JsonRpcId = typeof JsonRpcId.Type

/** A request (with `id`) or a notification (without). */
export const JsonRpcRequest = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.optional(JsonRpcId),
  method: Schema.String,
  params: Schema.optional(Schema.Unknown)
})
/** A request or a notification. */
export type JsonRpcRequest = typeof JsonRpcRequest.Type

/** The error object of a failed reply. */
export const JsonRpcErrorObject = Schema.Struct({
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
})
/** The error object of a failed reply. */
export type JsonRpcErrorObject = typeof JsonRpcErrorObject.Type

/** A reply: `result` or `error`, with the request's id. */
export const JsonRpcResponse = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.NullOr(JsonRpcId),
  result: Schema.optional(Schema.Unknown),
  error: Schema.optional(JsonRpcErrorObject)
})
/** A reply. */
export type JsonRpcResponse = typeof JsonRpcResponse.Type

/** A successful reply. */
export const resultReply = (id: JsonRpcId, result: unknown): JsonRpcResponse => ({ jsonrpc: "2.0", id, result })

/** A failed reply. */
export const errorReply = (id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcResponse => ({
  jsonrpc: "2.0",
  id,
  error: data === undefined ? { code, message } : { code, message, data }
})

/** MCP's tool annotations on the wire. */
export const WireToolAnnotations = Schema.Struct({
  title: Schema.optional(Schema.String),
  readOnlyHint: Schema.optional(Schema.Boolean),
  destructiveHint: Schema.optional(Schema.Boolean),
  idempotentHint: Schema.optional(Schema.Boolean),
  openWorldHint: Schema.optional(Schema.Boolean)
})

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A tool as `tools/list` describes it. */
export const WireTool = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  inputSchema: Schema.optional(JsonObject),
  outputSchema: Schema.optional(JsonObject),
  annotations: Schema.optional(WireToolAnnotations)
})
/** A tool as `tools/list` describes it. */
export type WireTool = typeof WireTool.Type

/** The result of `tools/list`. */
export const ToolsListResult = Schema.Struct({
  tools: Schema.Array(WireTool),
  nextCursor: Schema.optional(Schema.NullOr(Schema.String))
})

/** One piece of a `tools/call` result. Only text is read; other kinds are described. */
export const ContentItem = Schema.Struct({
  type: Schema.String,
  text: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String)
})

/** The result of `tools/call`. */
export const ToolsCallResult = Schema.Struct({
  content: Schema.optional(Schema.Array(ContentItem)),
  isError: Schema.optional(Schema.Boolean),
  structuredContent: Schema.optional(Schema.Unknown)
})

/** The result of `initialize`. */
export const InitializeResult = Schema.Struct({
  protocolVersion: Schema.String,
  capabilities: Schema.optional(JsonObject),
  serverInfo: Schema.optional(Schema.Struct({ name: Schema.String, version: Schema.optional(Schema.String) })),
  instructions: Schema.optional(Schema.String)
})
/** The result of `initialize`. */
export type InitializeResult = typeof InitializeResult.Type

/** Why talking to an MCP server failed. */
export class McpError extends Schema.TaggedError<McpError>()("McpError", {
  /** The server's alias, or its URL before it has one. */
  server: Schema.String,
  reason: Schema.Literal("Unreachable", "Protocol", "Rpc", "Config"),
  detail: Schema.String,
  /** The JSON-RPC error code, for `Rpc`. */
  code: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return `MCP server ${this.server}: ${this.detail}`
  }
}

/** The separator between a server's alias and its tool's name in the name the model sees. */
export const aliasSeparator = "__"

/** Whether `alias` can name a server: letters, digits and `-`, at most 24 (no `_`, so the separator stays unambiguous). */
export const isValidAlias = (alias: string): boolean => /^[A-Za-z0-9-]{1,24}$/.test(alias)

/**
 * The name a remote tool is registered under: `<alias>__<tool>`, with any
 * character a function name cannot hold replaced by `_`, and cut to 64
 * characters with a short hash of the full name so two long names stay apart.
 */
export const qualifiedToolName = (alias: string, tool: string): string => {
  const full = `${alias}${aliasSeparator}${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`
  if (full.length <= 64) return full
  let hash = 0
  for (const char of `${alias}/${tool}`) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) >>> 0
  return `${full.slice(0, 55)}_${hash.toString(16).padStart(8, "0")}`
}

/**
 * How a registered name reads to a person and in approval policies:
 * `alias.tool` for a remote tool, the name itself for a local one.
 */
export const displayToolName = (name: string): string => {
  const at = name.indexOf(aliasSeparator)
  if (at <= 0) return name
  const alias = name.slice(0, at)
  return isValidAlias(alias) ? `${alias}.${name.slice(at + aliasSeparator.length)}` : name
}
