/**
 * The flags of `easyai mcp`, apart from the server so that parsing a
 * command line (or printing `--help`) loads no server code.
 *
 * @module
 */
import { Options } from "@effect/cli"
import { defaultHost } from "../server/ServerOptions.js"
import * as GuardFlags from "./guardFlags.js"
import { mcpOption } from "./mcpServers.js"
import { settingsFileOption } from "./optionalField.js"
import * as ToolFlags from "./toolFlags.js"

/** The default port of the standalone MCP server. */
export const defaultMcpPort = 8090

const stdio = Options.boolean("stdio").pipe(
  Options.withDescription("Speak MCP on stdin/stdout (for desktop clients that start the server) instead of HTTP.")
)
const host = Options.text("host").pipe(Options.withDefault(defaultHost), Options.withDescription("The address to listen on."))
const port = Options.integer("port").pipe(Options.withDefault(defaultMcpPort), Options.withDescription("The port to listen on."))
const apiKey = ToolFlags.apiKey("Require `Authorization: Bearer <key>` on /mcp (env EASYAI_API_KEY).")
const memory = Options.directory("memory").pipe(
  Options.optional,
  Options.withDescription("Serve the knowledge tools on this memory directory.")
)
const skills = Options.directory("skills", { exists: "yes" }).pipe(
  Options.optional,
  Options.withDescription("Serve the skills in this directory (read_skill).")
)
const toolsMode = Options.choice("tools-mode", ["split", "unified", "both"]).pipe(
  Options.optional,
  Options.withDescription("The fs tool surface: one tool per operation (split, the default), one fs tool (unified), or both.")
)
const noSessions = Options.boolean("no-sessions").pipe(
  Options.withDescription("Stateless HTTP: no Mcp-Session-Id is issued or required.")
)

/** The flags of `easyai mcp`. */
export const mcpFlags = {
  stdio,
  host,
  port,
  apiKey,
  sandbox: ToolFlags.sandbox,
  allowBash: ToolFlags.allowBash,
  noPython: ToolFlags.noPython,
  memory,
  externalTools: ToolFlags.externalTools,
  webAllow: ToolFlags.webAllow,
  isolate: ToolFlags.isolate,
  toolEnv: ToolFlags.toolEnv,
  skills,
  toolsMode,
  tools: ToolFlags.tools,
  noSessions,
  cors: GuardFlags.cors,
  allowedHosts: GuardFlags.allowedHosts,
  bodyTimeout: GuardFlags.bodyTimeout,
  maxClientConnections: GuardFlags.maxClientConnections,
  mcp: mcpOption,
  config: settingsFileOption(
    "[cli] (sandbox, allow_bash, memory, skills, external_tools, web_allow, tools_mode, tools, mcp, isolate, tool_env), [SERVER] (cors, allowed_hosts, body_timeout, max_client_connections)"
  )
}
