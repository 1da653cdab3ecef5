/**
 * The `McpClient` service: connections to MCP servers whose tools join the
 * `ToolRegistry`, namespaced by the server's alias (`docs__search`, shown
 * to people as `docs.search`). Servers come from configuration at start
 * and can be connected and disconnected at runtime.
 *
 * @module
 */
import { Context, type Effect, type Option, type Redacted } from "effect"
import type { McpError } from "../domain/mcp.js"
import type { JsonSchema } from "../domain/ToolCall.js"

/** A server reached over Streamable HTTP. */
export interface McpHttpServerConfig {
  /** The endpoint, e.g. `http://127.0.0.1:8090/mcp`. */
  readonly url: string
  /** The namespace of its tools: letters, digits and `-`, at most 24. Default: from the URL's host and port. */
  readonly alias?: string
  /** Sent as `Authorization: Bearer <key>`. */
  readonly apiKey?: Redacted.Redacted<string>
}

/** A server started as a child process, speaking MCP on its stdin and stdout. */
export interface McpStdioServerConfig {
  /** The program, e.g. `npx`. */
  readonly command: string
  readonly args?: ReadonlyArray<string>
  /** Added to this process's environment. */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** The namespace of its tools: letters, digits and `-`, at most 24. */
  readonly alias: string
}

/** A server to connect to. */
export type McpServerConfig = McpHttpServerConfig | McpStdioServerConfig

/** A tool of a connected server. */
export interface McpTool {
  readonly alias: string
  /** Its name on the server. */
  readonly name: string
  /** The name the model calls, or `undefined` when a local tool of that name won. */
  readonly registeredAs: string | undefined
  readonly description: string
  readonly inputSchema: JsonSchema
}

/** A connected server. */
export interface McpServer {
  readonly alias: string
  /** Where it is: its URL, or `stdio:` and its command line. */
  readonly url: string
  /** The protocol version the server agreed to. */
  readonly protocolVersion: string
  /** The server's own name and version, as it reported them. */
  readonly serverInfo: string
  readonly tools: ReadonlyArray<McpTool>
}

/** The client's operations. */
export interface Service {
  /** Connects (initialize, tools/list) and registers the server's tools; fails when it cannot. */
  readonly connect: (server: McpServerConfig) => Effect.Effect<McpServer, McpError>
  /** Unregisters a server's tools and ends its session; tells whether it was connected. */
  readonly disconnect: (alias: string) => Effect.Effect<boolean>
  /** The connected servers. */
  readonly servers: Effect.Effect<ReadonlyArray<McpServer>>
  /** Every tool of every connected server. */
  readonly tools: Effect.Effect<ReadonlyArray<McpTool>>
  /** One tool, by `alias.tool` or by the name the model calls. */
  readonly tool: (name: string) => Effect.Effect<Option.Option<McpTool>>
}

/** Connections to MCP servers. */
export class McpClient extends Context.Tag("easyai/McpClient")<McpClient, Service>() {}
