/**
 * `--mcp URL[=alias]` or `--mcp "COMMAND ARG…[=alias]"`, the MCP servers
 * whose tools an agent (or the MCP server itself) takes on: the text of one
 * entry read as a server, for every command that takes it and `/mcp connect`.
 *
 * @module
 */
import { Option, type Redacted } from "effect"
import * as path from "node:path"
import { parse } from "shell-quote"
import { isValidAlias } from "../../domain/mcp.js"
import type { McpServerConfig } from "../../services/McpClient.js"

/** Whether `text` names a server by URL rather than by the command that starts it. */
export const isServerUrl = (text: string): boolean => /^https?:\/\//i.test(text.trim())

/**
 * A stdio server's default alias: the name of its script or package (the
 * last word that is not an option), e.g. `server-everything` for
 * `npx -y @modelcontextprotocol/server-everything`.
 */
const commandAlias = (words: ReadonlyArray<string>): string => {
  const named = [...words].reverse().find((word) => !word.startsWith("-")) ?? "mcp"
  const base = path.basename(named).replace(/\.[^.]*$/, "")
  return base.replace(/[^A-Za-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 24) || "mcp"
}

/**
 * A command line as words, quotes and `$VAR`s resolved as a POSIX shell
 * would; no shell runs it, so an operator (`&&`, `|`) is a literal word.
 */
const commandWords = (text: string): ReadonlyArray<string> =>
  parse(text, process.env).map((entry) =>
    typeof entry === "string" ? entry : "op" in entry ? (entry.op === "glob" ? entry.pattern : entry.op) : entry.comment
  )

/**
 * `http://host:8090/mcp=docs` → URL and alias; `node server.js=docs` →
 * a stdio server. The text after the last `=` is the alias when it is a
 * valid one; give an alias explicitly when the text itself ends in `=value`.
 */
export const parseMcpServer = (text: string, apiKey: Option.Option<Redacted.Redacted<string>>): McpServerConfig => {
  const at = text.lastIndexOf("=")
  const given = at > 0 ? text.slice(at + 1) : ""
  const alias = at > 0 && isValidAlias(given) ? given : undefined
  const target = alias === undefined ? text : text.slice(0, at)
  if (!isServerUrl(target)) {
    const [command = "", ...args] = commandWords(target)
    return { command, args, alias: alias ?? commandAlias([command, ...args]) }
  }
  const key = Option.match(apiKey, { onNone: () => ({}), onSome: (value) => ({ apiKey: value }) })
  return alias === undefined ? { url: target, ...key } : { url: target, alias, ...key }
}
