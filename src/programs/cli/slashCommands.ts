/**
 * The REPL's (and the hybrid shell's) `/` commands.
 *
 * @module
 */
import { Effect, Option, Ref } from "effect"
import { renderPlan } from "./planView.js"
import { findPreset, type PresetName, PresetName as PresetNames } from "../../domain/Sampling.js"
import { McpClient, type McpServerConfig } from "../../services/McpClient.js"
import { isServerUrl, parseMcpServer } from "./mcpServers.js"
import { Plan } from "../../services/Plan.js"
import { Session } from "../../services/Session.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import type { Spinner } from "./spinner.js"

const commands = [
  ["/help", "", "this list"],
  ["/exit", "", "leave (also /quit, or Ctrl+D)"],
  ["/quit", "", ""],
  ["/clear", "", "clear the conversation (tools and system prompt stay; Ctrl+L clears the screen)"],
  ["/reset", "", "clear the conversation and the plan"],
  ["/compress", "", "replace the conversation with the model's recap of it"],
  ["/plan", "", "show the model's plan"],
  ["/system", " <text>", "replace the system prompt (the conversation restarts); alone, show it"],
  ["/preset", " <name>", `switch the sampling preset: ${PresetNames.literals.join(", ")}`],
  ["/tools", "", "list the tools"],
  ["/mcp", " connect <url> [alias]", "use an MCP server's tools (or connect <command line>[=alias] for a stdio server); also /mcp list, tools, tool <alias.tool>, disconnect <alias>"]
] as const

const helpText = (shell: boolean) =>
  [
    "Commands:",
    ...commands.filter(([, , text]) => text !== "").map(([name, args, text]) => `  ${`${name}${args}`.padEnd(28)} ${text}`),
    shell
      ? "Lines starting with > go to the model; cd, export and unset last; anything else runs in $SHELL."
      : "A line may start with a preset, e.g. \"creative 0.9 write a poem\".",
    "Ctrl+C stops a generation (or a command), or clears the line; three in a row force an exit."
  ].join("\n")

/** Whether the line is one of these commands (in the hybrid shell, `/usr/bin/env` is not). */
export const isSlashCommand = (line: string): boolean => {
  const name = line.trim().split(/\s+/)[0] ?? ""
  return commands.some(([command]) => command === name)
}

/** What the commands act on besides the session's services. */
export interface CommandContext {
  /** The hybrid shell is running (for /help). */
  readonly shell: boolean
  /** The preset of the following turns. */
  readonly preset: Ref.Ref<Option.Option<PresetName>>
  readonly spinner: Spinner
  /** Called after the conversation changed (to save it). */
  readonly changed: Effect.Effect<void>
}

const say = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

const mcpCommand = (words: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const session = yield* Session
    const mcp = yield* McpClient
    const [verb = "", first = "", second] = words
    switch (verb) {
      case "connect": {
        if (first === "") return yield* say("usage: /mcp connect <url> [alias] | /mcp connect <command line>[=alias]")
        // A URL with an optional alias after it, or the command line of a stdio server.
        const config: McpServerConfig = isServerUrl(first)
          ? { url: first, ...(second === undefined ? {} : { alias: second }) }
          : parseMcpServer(words.slice(1).join(" "), Option.none())
        const connected = yield* Effect.either(mcp.connect(config))
        if (connected._tag === "Left") return yield* say(`error: ${connected.left.message}`)
        const server = connected.right
        yield* session.refreshSystem
        return yield* say(`connected ${server.alias} (${server.serverInfo}, MCP ${server.protocolVersion}): ${server.tools.length} tools`)
      }
      case "list": {
        const servers = yield* mcp.servers
        return yield* say(
          servers.length === 0 ? "(no MCP server)" : servers.map((server) => `${server.alias} — ${server.url} · ${server.tools.length} tools`).join("\n")
        )
      }
      case "tools": {
        const tools = yield* mcp.tools
        return yield* say(
          tools.length === 0
            ? "(no MCP tools)"
            : tools.map((tool) =>
              `${tool.alias}.${tool.name}${tool.registeredAs === undefined ? " (hidden by a local tool)" : ""} — ${tool.description.split("\n")[0] ?? ""}`
            ).join("\n")
        )
      }
      case "tool": {
        const tool = yield* mcp.tool(first)
        return yield* say(Option.match(tool, {
          onNone: () => `no MCP tool ${first}: /mcp tools lists them`,
          onSome: (found) => `${found.alias}.${found.name}\n${found.description}\n${JSON.stringify(found.inputSchema, null, 2)}`
        }))
      }
      case "disconnect": {
        const removed = yield* mcp.disconnect(first)
        if (removed) yield* session.refreshSystem
        return yield* say(removed ? `disconnected ${first}` : `no MCP server ${first}`)
      }
      default:
        return yield* say("usage: /mcp connect <url> [alias] | connect <command line>[=alias] | list | tools | tool <alias.tool> | disconnect <alias>")
    }
  })

/** `/compress`, which the REPL also runs by itself when the context is nearly full: the recap, shown. */
export const compressConversation = (context: Pick<CommandContext, "spinner" | "changed">) =>
  Effect.gen(function*() {
    const session = yield* Session
    yield* Effect.sync(() => context.spinner.show("compressing the conversation"))
    const compressed = yield* session.compress.pipe(Effect.ensuring(Effect.sync(() => context.spinner.clear())))
    if (compressed.replaced === 0) {
      return yield* say((yield* session.history).length === 0 ? "(nothing to compress)" : "(the model wrote no recap; the conversation is kept)")
    }
    yield* context.changed
    yield* say(`(${compressed.replaced} messages replaced by this recap)\n${compressed.recap}`)
  })

/** Runs one command line; `"exit"` when it asks to leave. */
export const runSlashCommand = (line: string, context: CommandContext) =>
  Effect.gen(function*() {
    const session = yield* Session
    const [name = "", ...rest] = line.trim().split(/\s+/)
    const argument = rest.join(" ")
    switch (name) {
      case "/exit":
      case "/quit":
        return "exit" as const
      case "/help":
        yield* say(helpText(context.shell))
        break
      case "/clear":
        yield* session.reset
        yield* context.changed
        yield* say("(conversation cleared; tools and system prompt kept)")
        break
      case "/reset":
        yield* session.reset
        yield* Effect.flatMap(Plan, (plan) => plan.reset)
        yield* context.changed
        yield* say("(conversation and plan cleared)")
        break
      case "/compress":
        yield* compressConversation(context)
        break
      case "/plan":
        yield* say(renderPlan(yield* Effect.flatMap(Plan, (plan) => plan.current), { color: process.stdout.isTTY === true }))
        break
      case "/system":
        if (argument === "") {
          yield* say(yield* session.system)
          break
        }
        yield* session.setSystem(argument)
        yield* context.changed
        yield* say("(system prompt replaced; conversation cleared)")
        break
      case "/preset": {
        const list = `presets: ${PresetNames.literals.join(", ")}`
        if (argument === "") {
          const current = yield* Ref.get(context.preset)
          yield* say(`${Option.match(current, { onNone: () => "(the session's preset)", onSome: (name) => `[preset: ${name}]` })}\n${list}`)
          break
        }
        const found = findPreset(argument)
        if (Option.isNone(found)) {
          yield* say(`unknown preset "${argument}"; ${list}`)
          break
        }
        yield* Ref.set(context.preset, found)
        yield* say(`[preset → ${found.value}]`)
        break
      }
      case "/tools":
        yield* say((yield* Effect.flatMap(ToolRegistry, (registry) => registry.specs)).map((spec) => `${spec.name} — ${spec.shortDescription}`).join("\n"))
        break
      case "/mcp":
        yield* mcpCommand(rest)
        break
      default:
        yield* say(`unknown command ${name}: /help lists them`)
    }
    return "continue" as const
  })
