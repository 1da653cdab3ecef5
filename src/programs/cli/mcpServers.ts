/**
 * `--mcp URL[=alias]`, the MCP servers whose tools an agent (or the MCP
 * server itself) takes on: the text of one entry read as a server.
 *
 * @module
 */
import { Option, type Redacted } from "effect"
import { isValidAlias } from "../../domain/mcp.js"
import type { McpServerConfig } from "../../services/McpClient.js"

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
