/**
 * The MCP server's protocol: one JSON-RPC message in, its reply out. A pure
 * function of the `ToolRegistry` — the same catalogue the local model sees —
 * so every transport (Streamable HTTP, stdio) shares it, and no model is
 * needed to serve tools.
 *
 * | method | reply |
 * |---|---|
 * | `initialize` | the client's protocol version when spoken, else the newest; server info, capabilities, `instructions` (the write/edit policy when `evaluate` is registered) |
 * | `ping` | `{}` |
 * | `tools/list` | full descriptions, input/output schemas, annotations; cursor pagination |
 * | `tools/call` | the tool's result as text content with `isError` (and `structuredContent` when the tool returns data) |
 * | notifications | nothing |
 * | anything else | `-32601` method not found |
 *
 * A bad argument or an unknown tool is an `isError` result the calling
 * model can act on, not a protocol error.
 *
 * @module
 */
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import {
  errorReply,
  isSupportedVersion,
  JsonRpcErrorCode,
  type JsonRpcId,
  JsonRpcRequest,
  type JsonRpcResponse,
  latestProtocolVersion,
  type ProtocolVersion,
  resultReply
} from "../../domain/mcp.js"
import { writeEditPolicyBlock } from "../../domain/SystemPrompt.js"
import { closestNames } from "../../domain/closestNames.js"
import { isObject, parseJson } from "../../domain/json.js"
import { maxJsonDepth, nestingExceeds } from "../../domain/jsonDepth.js"
import { newToolCallId, ToolCall, ToolResult, type ToolSpec } from "../../domain/ToolCall.js"
import type { ToolRegistry } from "../../services/ToolRegistry.js"
import { version } from "../../version.js"

/**
 * How many requests one server runs at once, on every transport: stdio
 * reads no further line while this many run; HTTP answers 503 past it.
 */
export const maxConcurrentRequests = 16

/** How the dispatcher serves the registry. */
export interface DispatcherOptions {
  /**
   * The tools offered, by name; every registered tool when absent. The
   * registry itself is untouched (the local model still sees every tool, and
   * `tool_lookup` describes them all): to narrow a whole agent, remove the
   * other tools from the registry instead, as `easyai mcp --tools` does.
   */
  readonly allow?: ReadonlySet<string>
  /** Tools per `tools/list` page. Default 100. */
  readonly pageSize?: number
}

/** A message, sorted by what it asks of the server. */
export type Incoming =
  | { readonly _tag: "Request"; readonly id: JsonRpcId; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Notification"; readonly method: string }
  /** A reply to a request the server sent; this server sends none, so it is ignored. */
  | { readonly _tag: "Reply" }

const decodeRequest = Schema.decodeUnknownEither(JsonRpcRequest)

/** Sorts one parsed JSON value, or says why it is not a JSON-RPC message (`-32600`). */
export const classify = (message: unknown): Either.Either<Incoming, JsonRpcResponse> => {
  if (Array.isArray(message)) {
    return Either.left(
      errorReply(null, JsonRpcErrorCode.InvalidRequest, "batch requests are not supported: send one JSON-RPC message per request")
    )
  }
  if (isObject(message) && !("method" in message) && ("result" in message || "error" in message)) {
    return Either.right({ _tag: "Reply" })
  }
  const decoded = decodeRequest(message)
  if (Either.isLeft(decoded)) {
    const id = isObject(message) && (typeof message["id"] === "string" || typeof message["id"] === "number") ? message["id"] : null
    const detail = ParseResult.TreeFormatter.formatErrorSync(decoded.left).split("\n").slice(0, 3).join(" ")
    return Either.left(errorReply(id, JsonRpcErrorCode.InvalidRequest, `not a JSON-RPC 2.0 request: ${detail}`))
  }
  const request = decoded.right
  return Either.right(
    request.id === undefined
      ? { _tag: "Notification", method: request.method }
      : { _tag: "Request", id: request.id, method: request.method, params: request.params }
  )
}

/** Parses a message and sorts it; text that is not JSON (or nests too deep to read safely) is `-32700`. */
export const classifyText = (text: string): Either.Either<Incoming, JsonRpcResponse> => {
  if (nestingExceeds(text, maxJsonDepth)) {
    return Either.left(errorReply(null, JsonRpcErrorCode.ParseError, `parse error: the message nests deeper than ${maxJsonDepth} levels`))
  }
  return Either.match(parseJson(text), {
    onLeft: (detail) => Either.left(errorReply(null, JsonRpcErrorCode.ParseError, `parse error: ${detail}`)),
    onRight: classify
  })
}

/** The protocol version a server answers a client's `initialize` with. */
export const negotiateVersion = (params: unknown): ProtocolVersion => {
  const asked = isObject(params) ? params["protocolVersion"] : undefined
  return typeof asked === "string" && isSupportedVersion(asked) ? asked : latestProtocolVersion
}

const wireAnnotations = (spec: ToolSpec) => {
  const annotations = spec.annotations
  if (annotations === undefined) return {}
  const hints = {
    ...(annotations.readOnly === undefined ? {} : { readOnlyHint: annotations.readOnly }),
    ...(annotations.destructive === undefined ? {} : { destructiveHint: annotations.destructive }),
    ...(annotations.idempotent === undefined ? {} : { idempotentHint: annotations.idempotent }),
    ...(annotations.openWorld === undefined ? {} : { openWorldHint: annotations.openWorld })
  }
  return Object.keys(hints).length === 0 ? {} : { annotations: hints }
}

const wireTool = (spec: ToolSpec) => ({
  name: spec.name,
  description: spec.description,
  inputSchema: { type: "object", ...spec.parameters },
  ...(spec.outputSchema === undefined ? {} : { outputSchema: { type: "object", ...spec.outputSchema } }),
  ...wireAnnotations(spec)
})

const wireResult = (result: ToolResult) => ({
  content: [{ type: "text", text: result.content }],
  isError: result.isError,
  ...(result.structured === undefined || result.isError ? {} : { structuredContent: result.structured })
})

/** The result for a tool outside the allow-list: as unknown as a tool that does not exist. */
const notOffered = (name: string, specs: ReadonlyArray<ToolSpec>): ToolResult => {
  const suggestions = closestNames(name, specs.map((spec) => spec.name))
  const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.join(", ")}?` : ""
  return ToolResult.error(`unknown tool: ${name}.${hint} Call tools/list for the available tools.`)
}

const encodeCursor = (offset: number): string => Buffer.from(`offset:${offset}`, "utf8").toString("base64url")

const decodeCursor = (cursor: unknown): Option.Option<number> => {
  if (cursor === undefined || cursor === null) return Option.some(0)
  if (typeof cursor !== "string") return Option.none()
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  const offset = text.startsWith("offset:") ? Number(text.slice("offset:".length)) : Number.NaN
  return Number.isSafeInteger(offset) && offset >= 0 ? Option.some(offset) : Option.none()
}

/** The dispatcher's operation. */
export interface Dispatcher {
  /** The reply to a request (a notification or a reply gets none). */
  readonly handle: (incoming: Incoming) => Effect.Effect<JsonRpcResponse | undefined>
}

/** A dispatcher over `registry`. */
export const make = (registry: ToolRegistry["Type"], options: DispatcherOptions = {}): Dispatcher => {
  const pageSize = Math.max(1, options.pageSize ?? 100)
  const offered = Effect.map(
    registry.specs,
    (specs) => (options.allow === undefined ? specs : specs.filter((spec) => options.allow?.has(spec.name) === true))
  )

  const initialize = (id: JsonRpcId, params: unknown) =>
    Effect.map(offered, (specs) => {
      const instructions = specs.some((spec) => spec.name === "evaluate") ? writeEditPolicyBlock(specs) : undefined
      return resultReply(id, {
        protocolVersion: negotiateVersion(params),
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "easyai", version },
        ...(instructions === undefined ? {} : { instructions })
      })
    })

  const listTools = (id: JsonRpcId, params: unknown) =>
    Effect.map(offered, (specs) => {
      const offset = decodeCursor(isObject(params) ? params["cursor"] : undefined)
      if (Option.isNone(offset) || offset.value > specs.length) {
        return errorReply(id, JsonRpcErrorCode.InvalidParams, "invalid cursor: pass the nextCursor of the previous page")
      }
      const end = offset.value + pageSize
      return resultReply(id, {
        tools: specs.slice(offset.value, end).map(wireTool),
        ...(end < specs.length ? { nextCursor: encodeCursor(end) } : {})
      })
    })

  const callTool = (id: JsonRpcId, params: unknown) =>
    Effect.gen(function*() {
      const name = isObject(params) ? params["name"] : undefined
      if (typeof name !== "string" || name === "") {
        return errorReply(id, JsonRpcErrorCode.InvalidParams, "tools/call needs params.name, the tool to call")
      }
      if (options.allow !== undefined) {
        const specs = yield* offered
        if (!specs.some((spec) => spec.name === name)) return resultReply(id, wireResult(notOffered(name, specs)))
      }
      const args = isObject(params) ? params["arguments"] : undefined
      // The arguments reach the tool as a model's would: it repairs and checks them, and teaches on failure.
      const result = yield* registry.call(
        new ToolCall({ id: newToolCallId(), name, arguments: args === undefined || args === null ? "{}" : JSON.stringify(args) })
      )
      return resultReply(id, wireResult(result))
    })

  const handle = (incoming: Incoming): Effect.Effect<JsonRpcResponse | undefined> => {
    if (incoming._tag !== "Request") return Effect.succeed(undefined)
    const { id, method, params } = incoming
    switch (method) {
      case "initialize":
        return initialize(id, params)
      case "ping":
        return Effect.succeed(resultReply(id, {}))
      case "tools/list":
        return listTools(id, params)
      case "tools/call":
        return callTool(id, params)
      default:
        return Effect.succeed(errorReply(id, JsonRpcErrorCode.MethodNotFound, `method not found: ${method}`))
    }
  }

  return { handle }
}
