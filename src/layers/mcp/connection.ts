/**
 * The MCP protocol over a channel: `initialize` and
 * `notifications/initialized`, then requests whose replies are checked and
 * whose JSON-RPC errors become `McpError`s — with one transparent
 * re-initialization when the server says the session expired.
 *
 * @module
 */
import { Effect, Either, Schema } from "effect"
import { InitializeResult, isSupportedVersion, JsonRpcResponse, latestProtocolVersion, McpError } from "../../domain/mcp.js"
import { version } from "../../version.js"
import type { Channel } from "./channel.js"

/** A live connection. */
export interface Connection {
  /** What the server said to `initialize`. */
  readonly server: InitializeResult
  /** Sends a request and returns its result. */
  readonly request: (method: string, params: unknown) => Effect.Effect<unknown, McpError>
  /** Ends the session (best effort). */
  readonly close: Effect.Effect<void>
}

const decodeReply = Schema.decodeUnknownEither(JsonRpcResponse)
const decodeInitialize = Schema.decodeUnknownEither(InitializeResult)

/** Connects over `channel`: `initialize`, then `notifications/initialized`. */
export const connect = (name: string, channel: Channel): Effect.Effect<Connection, McpError> =>
  Effect.gen(function*() {
    // Owned by this connection.
    let nextId = 1
    const fail = (reason: McpError["reason"], detail: string, code?: number) =>
      new McpError({ server: name, reason, detail, ...(code === undefined ? {} : { code }) })

    const send = (method: string, params: unknown, fresh = false) =>
      Effect.gen(function*() {
        const id = nextId++
        const raw = yield* channel.request({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }, fresh)
        const reply = decodeReply(raw)
        if (Either.isLeft(reply)) return yield* fail("Protocol", "the reply is not a JSON-RPC 2.0 response")
        const error = reply.right.error
        if (error !== undefined) return yield* fail("Rpc", `${error.message} (JSON-RPC ${error.code})`, error.code)
        return reply.right.result
      })

    const initialize = Effect.gen(function*() {
      const result = yield* send("initialize", {
        protocolVersion: latestProtocolVersion,
        capabilities: {},
        clientInfo: { name: "easyai", version }
      }, true)
      const server = decodeInitialize(result)
      if (Either.isLeft(server)) return yield* fail("Protocol", "the initialize result is malformed")
      if (!isSupportedVersion(server.right.protocolVersion)) {
        return yield* fail("Protocol", `the server speaks MCP ${server.right.protocolVersion}, which this client does not`)
      }
      yield* channel.agreed(server.right.protocolVersion)
      yield* channel.notify({ jsonrpc: "2.0", method: "notifications/initialized" })
      return server.right
    })

    const server = yield* initialize.pipe(
      Effect.catchTag("SessionExpired", () => Effect.fail(fail("Protocol", "the server refused the new session (404)")))
    )

    // Calls in flight when a session expires all see the 404: the first re-initializes, the others
    // wait for it and resend. `generation` counts the sessions this connection has had.
    let generation = 0
    const renewing = yield* Effect.makeSemaphore(1)
    const renew = (seen: number) =>
      renewing.withPermits(1)(Effect.suspend(() => {
        if (generation !== seen) return Effect.void
        return Effect.zipRight(initialize, Effect.sync(() => generation++))
      }))

    const request = (method: string, params: unknown): Effect.Effect<unknown, McpError> =>
      Effect.suspend(() => {
        const seen = generation
        return send(method, params).pipe(
          // Once: a server that forgets the session again right away is failing, not expiring.
          Effect.catchTag("SessionExpired", () =>
            Effect.zipRight(renew(seen), send(method, params)).pipe(
              Effect.catchTag("SessionExpired", () => Effect.fail(fail("Protocol", "the session expired again right after re-initializing")))
            ))
        )
      })

    return { server, request, close: channel.close }
  })
