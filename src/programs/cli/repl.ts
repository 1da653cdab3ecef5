/**
 * The interactive chat: a prompt, streamed answers, slash commands, and
 * Ctrl+C that stops a generation (the turn's fiber is interrupted, which
 * cancels the model and any running tool) and at the prompt clears the
 * line; three quick Ctrl+C force an exit; Ctrl+D exits.
 *
 * @module
 */
import { Cause, Effect, Exit, Fiber, Option, Queue, Runtime, Stream } from "effect"
import { createInterface, type Interface } from "node:readline"
import { findPreset, parsePresetPrefix, type PresetName, PresetName as PresetNames } from "../../domain/Sampling.js"
import type { ApprovalRequest } from "../../layers/approval/ApprovalLive.js"
import { McpClient } from "../../services/McpClient.js"
import { Session } from "../../services/Session.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { describeFailure } from "./failure.js"
import { TurnRenderer } from "./terminal.js"

/** The terminal line editor the REPL reads with (and asks approvals on). */
export const makeLineEditor = (): Interface =>
  createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY === true })

/** `call '…'? [y/N]` on the REPL's own line editor. */
export const askWith = (editor: Interface) => (request: ApprovalRequest): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    const args = request.call.arguments.length > 80 ? `${request.call.arguments.slice(0, 77)}…` : request.call.arguments
    editor.question(`call '${request.displayName}(${args})'? [y/N] `, (answer) => resume(Effect.succeed(/^\s*y(es)?\s*$/i.test(answer))))
  })

const help = `Commands:
  /help               this list
  /exit, /quit        leave (or Ctrl+D)
  /clear              clear the screen
  /reset              forget the conversation
  /system <text>      replace the system prompt (the conversation restarts)
  /preset <name>      switch the sampling preset: ${PresetNames.literals.join(", ")}
  /tools              list the tools
  /mcp connect <url> [alias]   use an MCP server's tools
  /mcp list           the connected MCP servers
  /mcp tools          their tools
  /mcp tool <name>    one tool's description and input schema (alias.tool)
  /mcp disconnect <alias>
A line may start with a preset, e.g. "creative 0.9 write a poem".
Ctrl+C stops a generation, or clears the line; three in a row force an exit.`

/** How close three Ctrl+C must be to force an exit, in milliseconds. */
const forceExitWindow = 1500

/** Runs the REPL until /exit or Ctrl+D. */
export const repl = (
  editor: Interface,
  options: {
    readonly noReasoning: boolean
    readonly maxTokens?: number
    /** Called after every change to the conversation (a hop, a reset), to save it. */
    readonly changed: Effect.Effect<void, never, Session>
  }
) =>
  Effect.gen(function*() {
    const session = yield* Session
    const changed = Effect.provideService(options.changed, Session, session)
    const registry = yield* ToolRegistry
    const mcp = yield* McpClient
    const runtime = yield* Effect.runtime<never>()
    let preset: PresetName | undefined
    let running: Fiber.RuntimeFiber<unknown, unknown> | undefined
    const presses: Array<number> = []

    editor.on("SIGINT", () => {
      const now = Date.now()
      presses.push(now)
      while (presses.length > 0 && now - (presses[0] ?? now) > forceExitWindow) presses.shift()
      if (presses.length >= 3) process.exit(130)
      if (running !== undefined) {
        Runtime.runFork(runtime)(Fiber.interruptFork(running))
        return
      }
      // At the prompt: clear the line and prompt again.
      editor.write(null, { ctrl: true, name: "u" })
      process.stdout.write("\n")
      editor.prompt()
    })

    // Lines typed while an answer streams are kept for later, not lost: a queue, not `question`.
    const lines = yield* Queue.unbounded<Option.Option<string>>()
    editor.setPrompt("> ")
    editor.on("line", (line) => Queue.unsafeOffer(lines, Option.some(line)))
    editor.on("close", () => Queue.unsafeOffer(lines, Option.none()))
    const readLine = Effect.zipRight(Effect.sync(() => editor.prompt()), Queue.take(lines))

    const say = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

    const turn = (text: string, turnPreset: PresetName | undefined, temperature: number | undefined) =>
      Effect.gen(function*() {
        const renderer = new TurnRenderer({ noReasoning: options.noReasoning, summary: true })
        const fiber = yield* session.stream(text, {
          ...(turnPreset === undefined ? {} : { preset: turnPreset }),
          ...(temperature === undefined ? {} : { sampling: { temperature } }),
          ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens })
        }).pipe(
          Stream.runForEach((event) => Effect.zipRight(renderer.event(event), event._tag === "MessagesAppended" ? changed : Effect.void)),
          Effect.fork
        )
        running = fiber
        const exit = yield* Fiber.await(fiber)
        running = undefined
        if (Exit.isFailure(exit)) {
          yield* say(Cause.isInterruptedOnly(exit.cause) ? "\n(stopped)" : `\nerror: ${describeFailure(Cause.squash(exit.cause))}`)
        }
      })

    const mcpCommand = (words: ReadonlyArray<string>): Effect.Effect<void> =>
      Effect.gen(function*() {
        const [verb = "", first = "", second] = words
        switch (verb) {
          case "connect": {
            if (first === "") return yield* say("usage: /mcp connect <url> [alias]")
            const connected = yield* Effect.either(mcp.connect({ url: first, ...(second === undefined ? {} : { alias: second }) }))
            if (connected._tag === "Left") return yield* say(`error: ${connected.left.message}`)
            const server = connected.right
            yield* session.refreshSystem
            return yield* say(`connected ${server.alias} (${server.serverInfo}, MCP ${server.protocolVersion}): ${server.tools.length} tools`)
          }
          case "list": {
            const servers = yield* mcp.servers
            return yield* say(servers.length === 0 ? "(no MCP server)" : servers.map((server) => `${server.alias} — ${server.url} · ${server.tools.length} tools`).join("\n"))
          }
          case "tools": {
            const tools = yield* mcp.tools
            return yield* say(tools.length === 0 ? "(no MCP tools)" : tools.map((tool) => `${tool.alias}.${tool.name}${tool.registeredAs === undefined ? " (hidden by a local tool)" : ""} — ${tool.description.split("\n")[0] ?? ""}`).join("\n"))
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
            return yield* say("usage: /mcp connect <url> [alias] | list | tools | tool <alias.tool> | disconnect <alias>")
        }
      })

    const command = (line: string): Effect.Effect<boolean> =>
      Effect.gen(function*() {
        const [name = "", ...rest] = line.trim().split(/\s+/)
        const argument = rest.join(" ")
        switch (name) {
          case "/exit":
          case "/quit":
            return false
          case "/help":
            yield* say(help)
            return true
          case "/clear":
            yield* Effect.sync(() => process.stdout.write("\u001b[2J\u001b[H"))
            return true
          case "/reset":
            yield* session.reset
            yield* changed
            yield* say("(conversation cleared)")
            return true
          case "/system":
            if (argument === "") {
              yield* say(yield* session.system)
              return true
            }
            yield* session.setSystem(argument)
            yield* changed
            yield* say("(system prompt replaced; conversation cleared)")
            return true
          case "/preset": {
            const found = findPreset(argument)
            if (Option.isNone(found)) {
              yield* say(`presets: ${PresetNames.literals.join(", ")}`)
              return true
            }
            preset = found.value
            yield* say(`[preset → ${preset}]`)
            return true
          }
          case "/tools":
            yield* say((yield* registry.specs).map((spec) => `${spec.name} — ${spec.shortDescription}`).join("\n"))
            return true
          case "/mcp":
            yield* mcpCommand(rest)
            return true
          default:
            yield* say(`unknown command ${name}: /help lists them`)
            return true
        }
      })

    while (true) {
      const line = yield* readLine
      if (Option.isNone(line)) break
      const text = line.value
      if (text.trim() === "") continue
      if (text.trim().startsWith("/")) {
        if (!(yield* command(text))) break
        continue
      }
      const prefix = parsePresetPrefix(text)
      if (Option.isSome(prefix) && prefix.value.text.trim() === "") {
        preset = prefix.value.preset
        yield* say(`[preset → ${preset}]`)
        continue
      }
      yield* Option.isSome(prefix)
        ? turn(prefix.value.text, prefix.value.preset, Option.getOrUndefined(prefix.value.temperature))
        : turn(text, preset, undefined)
    }
    editor.close()
  })
