/**
 * `easyai mcp`: the tools of an easyai agent as an MCP server, over
 * Streamable HTTP (`/mcp`) or stdio (`--stdio`, for desktop clients that
 * start it themselves). No model is loaded: the server only exposes the
 * registry.
 *
 * @module
 */
import type { Command } from "@effect/cli"
import type { mcpFlags } from "./mcpFlags.js"
import type { HttpServer, HttpServerError } from "@effect/platform"
import { NodeStream } from "@effect/platform-node"
import { Console, Effect, Option, type Redacted } from "effect"
import { ConfigurationError } from "../../domain/errors.js"
import * as NoChatModel from "../../layers/model/NoChatModel.js"
import * as SessionStack from "../../layers/session/SessionStack.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import * as Dispatcher from "../mcp/dispatcher.js"
import * as McpServerApp from "../mcp/McpServerApp.js"
import * as StdioTransport from "../mcp/stdioTransport.js"
import * as ServerLive from "../server/ServerLive.js"
import { defaultGraceSeconds, defaultTimeoutSeconds } from "../server/ServerOptions.js"
import { describeCorsPolicy, noCrossOrigin } from "../server/originPolicy.js"
import * as Config from "./config.js"
import * as GuardFlags from "./guardFlags.js"
import { optionalField } from "./optionalField.js"
import { reportFailure } from "./failure.js"
import * as ToolFlags from "./toolFlags.js"
import { mcpApiKey, parseMcpServer } from "./mcpServers.js"

/** What `easyai mcp`'s flags parsed to. */
export type Flags = Command.Command.ParseConfig<typeof mcpFlags>

/** The tools the flags ask for, registered as a chat agent's would be (no model behind them). */
const toolsLayer = (flag: Flags, mcpKey: Option.Option<Redacted.Redacted<string>>) =>
  SessionStack.layer({
    ...(flag.mcp.length === 0 ? {} : { mcp: { servers: flag.mcp.map((text) => parseMcpServer(text, mcpKey)) } }),
    model: NoChatModel.layer("the MCP server serves tools and runs no model"),
    toolMode: Option.getOrElse(flag.toolsMode, () => "split" as const),
    ...ToolFlags.hostOption(flag),
    ...ToolFlags.webOption(flag),
    // Over stdio the client started this process on its own machine: the system_* tools report to their owner.
    ...(flag.stdio ? { system: true } : {}),
    ...Option.match(flag.memory, { onNone: () => ({}), onSome: (dir) => ({ memory: dir }) }),
    ...Option.match(flag.skills, { onNone: () => ({}), onSome: (dir) => ({ skills: { directories: [dir] } }) })
  })

const writeLine = (line: string) =>
  Effect.async<void>((resume) => {
    process.stdout.write(`${line}\n`, () => resume(Effect.void))
  })

/** MCP on stdin/stdout until the client closes the pipe. */
const serveStdio = Effect.gen(function*() {
  const dispatcher = Dispatcher.make(yield* ToolRegistry)
  const stdin = NodeStream.fromReadable(() => process.stdin, (error) => new ConfigurationError({ message: `stdin: ${String(error)}` }))
  yield* StdioTransport.serve(dispatcher, stdin, writeLine)
})

/** MCP over HTTP until SIGINT/SIGTERM. */
const serveHttp = (flag: Flags) =>
  Effect.scoped(Effect.gen(function*() {
    const served = yield* McpServerApp.make({
      sessions: !flag.noSessions,
      ...optionalField("cors", flag.cors),
      ...Option.match(flag.apiKey, { onNone: () => ({}), onSome: (key) => ({ apiKey: key }) })
    })
    const server: HttpServer.HttpServer = yield* ServerLive.serve(served, {
      host: flag.host,
      port: flag.port,
      timeoutSeconds: defaultTimeoutSeconds,
      graceSeconds: defaultGraceSeconds,
      ...GuardFlags.listenGuards(flag)
    })
    const address = server.address
    const url = address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}/mcp` : address.path
    const count = (yield* (yield* ToolRegistry).specs).length
    const cors = describeCorsPolicy(Option.getOrElse(flag.cors, () => noCrossOrigin))
    yield* Console.log(
      `easyai mcp · ${url}\n  tools ${count} · auth ${Option.isSome(flag.apiKey) ? "on" : "off"} · sessions ${flag.noSessions ? "off" : "on"} · cors ${cors}`
    )
    return yield* Effect.never
  }))

/** `easyai mcp`: serves until SIGINT/SIGTERM, or until stdin ends under --stdio. */
export const mcp = (given: Flags) =>
  Effect.gen(function*() {
    const settings = yield* Config.readSettings(given.config)
    const flag = GuardFlags.withServerSettings(ToolFlags.withCliTools(given, settings.cli), settings.server)
    yield* ToolFlags.checkHostFlags(flag)
    const serve: Effect.Effect<void, ConfigurationError | HttpServerError.ServeError, ToolRegistry> = flag.stdio
      ? serveStdio
      : serveHttp(flag)
    yield* Effect.zipRight(ToolFlags.narrowTools(flag.tools), serve).pipe(Effect.provide(toolsLayer(flag, yield* mcpApiKey)))
  }).pipe(reportFailure("easyai mcp"))
