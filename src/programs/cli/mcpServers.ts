/**
 * `--mcp URL[=alias]`, the MCP servers whose tools an agent (or the MCP
 * server itself) takes on, shared by every command that accepts it.
 *
 * @module
 */
import { Options } from "@effect/cli"
import { Option, type Redacted } from "effect"
import { envSecret } from "./optionalField.js"
import { isValidAlias } from "../../domain/mcp.js"
import type { McpServerConfig } from "../../services/McpClient.js"

/** The flag: repeatable. */
export const mcpOption = Options.text("mcp").pipe(
  Options.repeated,
  Options.withDescription(
    "Use the tools of this MCP server (Streamable HTTP), as URL or URL=alias; repeatable. Its tools are named alias__tool. Env EASYAI_MCP_API_KEY is sent as a Bearer key."
  )
)

/**
 * `http://host:8090/mcp=docs` → URL and alias. The text after the last `=`
 * is the alias when it is a valid one; give an alias explicitly when the
 * URL itself ends in `=value`.
 */
export const parseMcpServer = (text: string, apiKey: Option.Option<Redacted.Redacted<string>>): McpServerConfig => {
  const at = text.lastIndexOf("=")
  const alias = at > 0 ? text.slice(at + 1) : ""
  const key = Option.match(apiKey, { onNone: () => ({}), onSome: (value) => ({ apiKey: value }) })
  return at > 0 && isValidAlias(alias) ? { url: text.slice(0, at), alias, ...key } : { url: text, ...key }
}

/** The key sent to MCP servers, from `EASYAI_MCP_API_KEY` (blank = none). */
export const mcpApiKey = envSecret("EASYAI_MCP_API_KEY")
