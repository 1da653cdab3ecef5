/**
 * One connection to an MCP server over Streamable HTTP: JSON-RPC requests
 * POSTed to its endpoint, replies read as JSON or as an SSE stream (servers
 * may answer either way), the `Mcp-Session-Id` it issues sent back on every
 * request, and one transparent re-initialization when the server says the
 * session expired (404).
 *
 * Transport failures and 5xx are retried under the client's retry
 * Schedule; a 4xx, a malformed reply and a JSON-RPC error are not.
 *
 * @module
 */
import { HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Data, Effect, Either, Option, type Redacted, Schema, Stream } from "effect"
import {
  InitializeResult,
  isSupportedVersion,
  JsonRpcResponse,
  latestProtocolVersion,
  McpError
} from "../../domain/mcp.js"
import { version } from "../../programs/version.js"
import * as Sse from "../client/sse.js"
import type { SendFailure, Transport } from "../client/transport.js"

/** A live connection. */
export interface Connection {
  /** What the server said to `initialize`. */
  readonly server: InitializeResult
  /** Sends a request and returns its result. */
  readonly request: (method: string, params: unknown) => Effect.Effect<unknown, McpError>
  /** Ends the session (best effort). */
  readonly close: Effect.Effect<void>
}

/** The server forgot the session: initialize again. */
class SessionExpired extends Data.TaggedError("SessionExpired") {}

const decodeReply = Schema.decodeUnknownEither(JsonRpcResponse)
const decodeInitialize = Schema.decodeUnknownEither(InitializeResult)

const parseJson = (text: string): Either.Either<unknown, string> => {
  try {
    return Either.right(JSON.parse(text))
  } catch (error) {
    return Either.left(error instanceof Error ? error.message : String(error))
  }
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Connects: `initialize`, then `notifications/initialized`.
 * `onNotification` hears the notifications the server sends along with its replies.
 */
export const connect = (options: {
  readonly name: string
  readonly url: string
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly transport: Transport
  readonly onNotification: (method: string) => Effect.Effect<void>
}): Effect.Effect<Connection, McpError> =>
  Effect.gen(function*() {
    const { name, onNotification, transport, url } = options
    // Owned by this connection; every change happens in one synchronous step.
    let session: string | undefined
    let protocol: string | undefined
    let nextId = 1

    const fail = (reason: McpError["reason"], detail: string, code?: number) =>
      new McpError({ server: name, reason, detail, ...(code === undefined ? {} : { code }) })

    const sendFailure = (failure: SendFailure): McpError | SessionExpired => {
      const error = failure.error
      if (error._tag === "HttpStatusError") {
        if (error.status === 404 && session !== undefined) return new SessionExpired()
        const said = error.body.trim().slice(0, 300)
        return fail(error.status >= 500 ? "Unreachable" : "Protocol", `HTTP ${error.status}${said === "" ? "" : `: ${said}`}`)
      }
      const attempts = failure.attempts > 1 ? ` (after ${failure.attempts} attempts)` : ""
      return fail("Unreachable", `${error.detail}${attempts}`)
    }

    /** The reply with `id` from an SSE body, handing notifications on as they pass. */
    const fromEvents = (response: HttpClientResponse.HttpClientResponse, id: number) =>
      Sse.messages(transport.body(response)).pipe(
        Stream.mapError((error) => fail("Unreachable", error.detail)),
        Stream.mapEffect((message) => {
          if (message._tag === "Done") return Effect.succeed(Option.none<unknown>())
          const parsed = parseJson(message.data)
          if (Either.isLeft(parsed)) return Effect.fail(fail("Protocol", `malformed event: ${parsed.left}`))
          const value = parsed.right
          if (isObject(value) && typeof value["method"] === "string" && !("id" in value)) {
            return Effect.as(onNotification(value["method"]), Option.none<unknown>())
          }
          return Effect.succeed(isObject(value) && value["id"] === id ? Option.some(value) : Option.none<unknown>())
        }),
        Stream.filterMap((reply) => reply),
        Stream.runHead,
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(fail("Protocol", "the event stream ended without a reply")),
          onSome: Effect.succeed
        }))
      )

    const authorized = (request: HttpClientRequest.HttpClientRequest) =>
      options.apiKey === undefined ? request : HttpClientRequest.bearerToken(request, options.apiKey)

    /** POSTs one message; with an `id`, reads and returns the reply. */
    const post = (message: Record<string, unknown>, id: number | undefined) =>
      Effect.scoped(Effect.gen(function*() {
        const request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.setHeaders({
            accept: "application/json, text/event-stream",
            ...(session === undefined ? {} : { "mcp-session-id": session }),
            ...(protocol === undefined ? {} : { "mcp-protocol-version": protocol })
          }),
          HttpClientRequest.bodyUnsafeJson(message),
          authorized
        )
        const { response } = yield* transport.send(request).pipe(Effect.mapError(sendFailure))
        const issued = response.headers["mcp-session-id"]
        if (issued !== undefined && issued !== "") session = issued
        if (id === undefined) return undefined
        const type = (response.headers["content-type"] ?? "").toLowerCase()
        const raw = type.includes("text/event-stream")
          ? yield* fromEvents(response, id)
          : yield* Effect.flatMap(
            transport.text(response).pipe(Effect.mapError((error) => fail("Unreachable", error.detail))),
            (text) => Either.mapLeft(parseJson(text), (detail) => fail("Protocol", `malformed reply: ${detail}`))
          )
        const reply = decodeReply(raw)
        if (Either.isLeft(reply)) return yield* fail("Protocol", "the reply is not a JSON-RPC 2.0 response")
        if (reply.right.error !== undefined) {
          return yield* fail("Rpc", `${reply.right.error.message} (JSON-RPC ${reply.right.error.code})`, reply.right.error.code)
        }
        return reply.right.result
      }))

    const send = (method: string, params: unknown) =>
      Effect.suspend(() => {
        const id = nextId++
        return post({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }, id)
      })

    const initialize = Effect.gen(function*() {
      session = undefined
      protocol = undefined
      const result = yield* send("initialize", {
        protocolVersion: latestProtocolVersion,
        capabilities: {},
        clientInfo: { name: "easyai", version }
      })
      const server = decodeInitialize(result)
      if (Either.isLeft(server)) return yield* fail("Protocol", "the initialize result is malformed")
      if (!isSupportedVersion(server.right.protocolVersion)) {
        return yield* fail("Protocol", `the server speaks MCP ${server.right.protocolVersion}, which this client does not`)
      }
      protocol = server.right.protocolVersion
      yield* post({ jsonrpc: "2.0", method: "notifications/initialized" }, undefined)
      return server.right
    })

    const first = yield* initialize.pipe(
      Effect.catchTag("SessionExpired", () => Effect.fail(fail("Protocol", "the server refused the new session (404)")))
    )

    const request = (method: string, params: unknown): Effect.Effect<unknown, McpError> =>
      send(method, params).pipe(
        // Once: a server that forgets the session again right away is failing, not expiring.
        Effect.catchTag("SessionExpired", () =>
          Effect.zipRight(initialize, send(method, params)).pipe(
            Effect.catchTag("SessionExpired", () => Effect.fail(fail("Protocol", "the session expired again right after re-initializing")))
          ))
      )

    const close = Effect.suspend(() => {
      if (session === undefined) return Effect.void
      const request = authorized(HttpClientRequest.del(url).pipe(HttpClientRequest.setHeader("mcp-session-id", session)))
      return Effect.ignore(Effect.scoped(transport.send(request)))
    })

    return { server: first, request, close }
  })
