/**
 * `easyai mcp`: the tools of an easyai agent as an MCP server, over
 * Streamable HTTP (`/mcp`) or stdio (`--stdio`, for desktop clients that
 * start it themselves). No model is loaded: the server only exposes the
 * registry.
 *
 * @module
 */
import type { HttpServer, HttpServerError } from "@effect/platform"
import { NodeStream } from "@effect/platform-node"
import { Console, Effect, Layer, Option } from "effect"
import { ConfigurationError } from "../../domain/errors.js"
import * as NoChatModel from "../../layers/model/NoChatModel.js"
import * as SessionStack from "../../layers/session/SessionStack.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import * as Dispatcher from "../../apps/mcp/dispatcher.js"
import * as McpServerApp from "../../apps/mcp/McpServerApp.js"
import * as StdioTransport from "../../apps/mcp/stdioTransport.js"
import { describeCorsPolicy, noCrossOrigin } from "../../apps/server/originPolicy.js"
import * as ServerLive from "../../apps/server/ServerLive.js"
import { reportFailure } from "./failure.js"
import { narrowTools } from "./narrowTools.js"
import { type ParsedFlags, settingsFor } from "./settings/options.js"
import { get, option, type Resolved } from "./settings/resolve.js"
import * as Stack from "./settings/stack.js"
import { optionalField } from "./settings/stack.js"

/** The tools the settings ask for, registered as a chat agent's would be (no model behind them). */
const toolsLayer = (settings: Resolved) =>
  Layer.unwrapEffect(Effect.map(
    Stack.stackOptions(settings, {
      model: NoChatModel.layer("the MCP server serves tools and runs no model"),
      // Over stdio the client started this process on its own machine: the system_* tools report to their owner.
      system: get(settings, "stdio") === true
    }),
    SessionStack.layer
  ))

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
const serveHttp = (settings: Resolved) =>
  Effect.scoped(Effect.gen(function*() {
    const sessions = get(settings, "sessions") !== false
    const apiKey = option(settings, "apiKey")
    const cors = option(settings, "cors")
    const served = yield* McpServerApp.make({
      sessions,
      ...optionalField("cors", cors),
      ...optionalField("apiKey", apiKey)
    })
    const server: HttpServer.HttpServer = yield* ServerLive.serve(served, Stack.listenOptions(settings))
    const address = server.address
    const url = address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}/mcp` : address.path
    const count = (yield* (yield* ToolRegistry).specs).length
    yield* Console.log(
      `easyai mcp · ${url}\n  tools ${count} · auth ${Option.isSome(apiKey) ? "on" : "off"} · sessions ${sessions ? "on" : "off"} · cors ${
        describeCorsPolicy(Option.getOrElse(cors, () => noCrossOrigin))
      }`
    )
    return yield* Effect.never
  }))

/** `easyai mcp`: serves until SIGINT/SIGTERM, or until stdin ends under --stdio. */
export const mcp = (flags: ParsedFlags) =>
  Effect.gen(function*() {
    const settings = yield* settingsFor("mcp", flags)
    const serve: Effect.Effect<void, ConfigurationError | HttpServerError.ServeError, ToolRegistry> = get(settings, "stdio") === true
      ? serveStdio
      : serveHttp(settings)
    yield* Effect.zipRight(narrowTools(option(settings, "tools")), serve).pipe(
      Effect.provide(toolsLayer(settings)),
      Effect.provide(Stack.observabilityLayer(settings))
    )
  }).pipe(reportFailure("easyai mcp"))
