/**
 * MCP server test support: JSON-RPC message builders, a `ToolRegistry` on
 * test tools (no model runs), the standalone MCP app (`McpServerApp`) on a
 * free loopback port, and raw `/mcp` requests over a real socket.
 */
import { HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import { type ListenOptions, McpServerApp, ServerLive, SessionStack, type Tool } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import type { Reply } from "./server.js"

/** The protocol versions the server speaks, newest first (as the spec names them). */
export const specVersions = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/** A JSON-RPC 2.0 request. */
export const rpcRequest = (id: number | string, method: string, params?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params })
})

/** A JSON-RPC 2.0 notification (no id). */
export const rpcNotification = (method: string, params?: unknown) => ({
  jsonrpc: "2.0",
  method,
  ...(params === undefined ? {} : { params })
})

/** The params of a client's `initialize`. */
export const initializeParams = (protocolVersion: string = specVersions[0]) => ({
  protocolVersion,
  capabilities: {},
  clientInfo: { name: "easyai-test", version: "0.0.0" }
})

/** The params of `tools/call`. */
export const callParams = (name: string, args?: Readonly<Record<string, unknown>>) => ({
  name,
  ...(args === undefined ? {} : { arguments: args })
})

/** Which tools a test server registers. */
export interface TestTools {
  /** Tools registered first, in order. */
  readonly tools?: ReadonlyArray<Tool.Tool>
  /** Also the defaults (datetime, plan, web, tool_lookup). Default false. */
  readonly withDefaultTools?: boolean
}

/** A session stack whose registry holds `tools`; its model is a script of no turns (the MCP server never asks it). */
export const toolsLayer = (tools: TestTools = {}) =>
  SessionStack.layer({
    model: ScriptedChatModel.layer([]),
    session: { withDefaultTools: tools.withDefaultTools ?? false, tools: tools.tools ?? [] }
  })

/** Where a standalone MCP server under test listens. */
export class McpEndpoint extends Context.Tag("test/McpEndpoint")<McpEndpoint, {
  /** e.g. `http://127.0.0.1:40123` */
  readonly base: string
  /** e.g. `http://127.0.0.1:40123/mcp` */
  readonly url: string
}>() {}

/** The base URL of a listening server. */
export const baseUrlOf = (server: HttpServer.HttpServer): string =>
  server.address._tag === "TcpAddress" ? `http://127.0.0.1:${server.address.port}` : server.address.path

/**
 * The standalone MCP app (`McpServerApp.make(options)`) on port 0 over a
 * registry of `tools`, served by the real listener for the life of the
 * scope, `listen` over the test defaults (port 0, 1 s grace). Needs the
 * `ToolRegistry` in context (see {@link toolsLayer}).
 */
export const serveStandalone = (options: McpServerApp.McpServerOptions = {}, listen: ListenOptions = {}) =>
  Effect.gen(function*() {
    const served = yield* McpServerApp.make(options)
    const server = yield* ServerLive.serve(served, { port: 0, graceSeconds: 1, ...listen })
    const base = baseUrlOf(server)
    return { base, url: `${base}/mcp` }
  })

/**
 * The standalone MCP server as a Layer: its endpoint, and an `HttpClient`
 * whose relative URLs go to it.
 */
export const standalone = (options: McpServerApp.McpServerOptions = {}, tools: TestTools = {}, listen: ListenOptions = {}) => {
  const endpoint = Layer.scoped(McpEndpoint, serveStandalone(options, listen)).pipe(Layer.provide(toolsLayer(tools)))
  const client = Layer.effect(
    HttpClient.HttpClient,
    Effect.gen(function*() {
      const { base } = yield* McpEndpoint
      return (yield* HttpClient.HttpClient).pipe(HttpClient.mapRequest(HttpClientRequest.prependUrl(base)))
    })
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))
  return Layer.provideMerge(client, endpoint)
}

/** The headers a Streamable HTTP client sends on every POST. */
export const clientAccept = { accept: "application/json, text/event-stream" } as const

/** What a raw `/mcp` request sends. */
export interface McpSend {
  /** A value sent as JSON. */
  readonly json?: unknown
  /** Raw body text, sent as is. */
  readonly text?: string
  /** The body's content type. Default `application/json`. */
  readonly contentType?: string
  /** More headers; `accept` defaults to {@link clientAccept}. */
  readonly headers?: Readonly<Record<string, string>>
}

/** Sends a request to `path` (default `/mcp`) on the `HttpClient` in context and reads the whole response. */
export const mcpSend = (method: "GET" | "POST" | "DELETE", what: McpSend = {}, path = "/mcp") =>
  Effect.scoped(Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const base = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeaders({ ...clientAccept, ...what.headers }))
    const body = what.json !== undefined ? JSON.stringify(what.json) : what.text
    const request = body === undefined
      ? base
      : HttpClientRequest.bodyText(base, body, what.contentType ?? "application/json")
    const response = yield* client.execute(request)
    return { status: response.status, headers: response.headers, text: yield* response.text } satisfies Reply
  }))

/** POSTs one JSON-RPC message to `/mcp`. */
export const mcpPost = (message: unknown, headers: Readonly<Record<string, string>> = {}) =>
  mcpSend("POST", { json: message, headers })

/**
 * `initialize` then `notifications/initialized`: the opening of a session.
 * Returns the session id the server issued (undefined when it keeps none)
 * and the `initialize` reply.
 */
export const openSession = (headers: Readonly<Record<string, string>> = {}, protocolVersion: string = specVersions[0]) =>
  Effect.gen(function*() {
    const initialized = yield* mcpPost(rpcRequest(0, "initialize", initializeParams(protocolVersion)), headers)
    const session = initialized.headers["mcp-session-id"]
    const sessionHeaders = { ...headers, ...(session === undefined ? {} : { "mcp-session-id": session }) }
    const acknowledged = yield* mcpPost(rpcNotification("notifications/initialized"), sessionHeaders)
    return { session, sessionHeaders, initialized, acknowledged }
  })

/** POSTs one JSON-RPC message to `url` and reads the reply. */
export const post = (url: string, message: unknown, headers: Readonly<Record<string, string>> = {}) =>
  Effect.scoped(Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).execute(
      HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders({ accept: "application/json, text/event-stream", ...headers }),
        HttpClientRequest.bodyUnsafeJson(message)
      )
    )
    const text = yield* response.text
    return { status: response.status, session: response.headers["mcp-session-id"], body: text === "" ? undefined : JSON.parse(text) }
  }))

