/**
 * A real easyai server process for the remote Session conformance suite:
 * `ServerLive` on the conversation model, with bash in the sandbox ROOT and
 * its remote sessions saved in DIR. Prints `agent server · <url>` once
 * listening; serves until killed.
 *
 * Usage: agentServer.ts ROOT DIR
 */
import { HttpServer } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { directoryStore, ServerLive } from "easyai"
import { conversationModel } from "./conversationModel.js"

const [root = ".", dir = "."] = process.argv.slice(2)

const program = Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const address = server.address
  yield* Console.log(`agent server · http://127.0.0.1:${address._tag === "TcpAddress" ? address.port : 0}`)
  return yield* Effect.never
}).pipe(Effect.provide(ServerLive.layer({
  model: conversationModel,
  host: { root, bash: true },
  preamble: { timeZone: "UTC" },
  server: { agentSessions: { store: directoryStore(dir) } },
  listen: { port: 0, graceSeconds: 1 }
})))

NodeRuntime.runMain(program)
