/**
 * A remote MCP tool as a local `Tool`: its input schema verbatim, its
 * annotations, and a handler that proxies `tools/call`. Whatever goes wrong
 * on the way — the server unreachable, a JSON-RPC error — becomes an error
 * result the model reads and can react to.
 *
 * @module
 */
import { Effect, Either, Schema } from "effect"
import { type McpError, ToolsCallResult, type WireTool } from "../../domain/mcp.js"
import * as Tool from "../../domain/Tool.js"
import { type ToolAnnotations, ToolResult } from "../../domain/ToolCall.js"

const decodeResult = Schema.decodeUnknownEither(ToolsCallResult)

/** What `tools/call` returned, as the model reads it. Non-text content is named, not inlined. */
export const toToolResult = (raw: unknown): ToolResult => {
  const result = decodeResult(raw)
  if (Either.isLeft(result)) return ToolResult.error("the MCP server returned a malformed tools/call result")
  const text = (result.right.content ?? [])
    .map((item) => item.type === "text" ? item.text ?? "" : `[${item.type}${item.mimeType === undefined ? "" : ` ${item.mimeType}`}]`)
    .join("\n")
  const structured = result.right.structuredContent
  const content = text === "" && structured !== undefined ? JSON.stringify(structured) : text
  return new ToolResult({
    content,
    isError: result.right.isError ?? false,
    ...(structured === undefined ? {} : { structured })
  })
}

const annotationsOf = (tool: WireTool): ToolAnnotations | undefined => {
  const hints = tool.annotations
  if (hints === undefined) return undefined
  return {
    ...(hints.readOnlyHint === undefined ? {} : { readOnly: hints.readOnlyHint }),
    ...(hints.destructiveHint === undefined ? {} : { destructive: hints.destructiveHint }),
    ...(hints.idempotentHint === undefined ? {} : { idempotent: hints.idempotentHint }),
    ...(hints.openWorldHint === undefined ? {} : { openWorld: hints.openWorldHint })
  }
}

/** The local tool `name` that calls `tool` on the server through `call`. */
export const remoteTool = (
  name: string,
  tool: WireTool,
  call: (arguments_: Readonly<Record<string, unknown>>) => Effect.Effect<unknown, McpError>
): Tool.Tool => {
  const annotations = annotationsOf(tool)
  return Tool.fromJsonSchema({
    name,
    description: tool.description ?? tool.title ?? tool.name,
    parameters: tool.inputSchema ?? { type: "object", properties: {} },
    ...(annotations === undefined ? {} : { annotations }),
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    handler: (args) => Effect.map(call(args), toToolResult)
  })
}
