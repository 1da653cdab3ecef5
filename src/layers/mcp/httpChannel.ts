/**
 * The Streamable HTTP channel: each message POSTed to the server's
 * endpoint; a reply read as JSON or from an SSE stream (servers may answer
 * either way), notifications met on that stream handed on; the
 * `Mcp-Session-Id` the server issues sent back on every message; a 404 on
 * a live session reported as `SessionExpired`.
 *
 * Transport failures and 5xx are retried by the transport's Schedule; a
 * 4xx and a malformed reply are not.
 *
 * @module
 */
import { HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Effect, Either, Option, type Redacted, Stream } from "effect"
import { McpError } from "../../domain/mcp.js"
import { backoff } from "../client/retry.js"
import * as Sse from "../client/sse.js"
import type { SendFailure, Transport } from "../client/transport.js"
import { type Channel, type Outgoing, SessionExpired } from "./channel.js"
import { isObject, parseJson } from "../../domain/json.js"

/** Where and how to reach the server. */
export interface HttpChannelOptions {
  readonly name: string
  readonly url: string
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly transport: Transport
  readonly onNotification: (method: string) => Effect.Effect<void>
}

/** A channel to `options.url`. */
export const make = (options: HttpChannelOptions): Channel => {
  const { name, onNotification, transport, url } = options
  // Owned by this channel; every change happens in one synchronous step.
  let session: string | undefined
  let protocol: string | undefined

  const fail = (reason: McpError["reason"], detail: string) => new McpError({ server: name, reason, detail })

  /** `sentSession`: the session the failed message carried; only a 404 on a session means it expired. */
  const sendFailure = (failure: SendFailure, sentSession: string | undefined): McpError | SessionExpired => {
    const error = failure.error
    if (error._tag === "HttpStatusError") {
      if (error.status === 404 && sentSession !== undefined) return new SessionExpired()
      const said = error.body.trim().slice(0, 300)
      return fail(error.status >= 500 ? "Unreachable" : "Protocol", `HTTP ${error.status}${said === "" ? "" : `: ${said}`}`)
    }
    const attempts = failure.attempts > 1 ? ` (after ${failure.attempts} attempts)` : ""
    return fail("Unreachable", `${error.detail}${attempts}`)
  }

  const authorized = (request: HttpClientRequest.HttpClientRequest) =>
    options.apiKey === undefined ? request : HttpClientRequest.bearerToken(request, options.apiKey)

  /**
   * Answers a request the server sent on a reply stream: `ping` is answered,
   * anything else (sampling, elicitation…) is declined as not supported, so
   * the server's tool does not wait for an answer that never comes.
   */
  const answer = (id: unknown, method: string) =>
    typeof id === "string" || typeof id === "number"
      ? Effect.ignore(post(
        method === "ping"
          ? { jsonrpc: "2.0", id, result: {} }
          : { jsonrpc: "2.0", id, error: { code: -32601, message: `this client does not support ${method}` } }
      ))
      : Effect.void

  /**
   * The messages of an SSE body that are not the server's own notifications
   * and requests: those are handled on the way (a notification handed on, a
   * request answered).
   */
  const events = (response: HttpClientResponse.HttpClientResponse) =>
    Sse.messages(transport.body(response)).pipe(
      Stream.mapError((error) => fail("Unreachable", error.detail)),
      Stream.mapEffect((message) => {
        // A priming event (an id for resuming, empty data) carries no message.
        if (message._tag === "Done" || message.data.trim() === "") return Effect.succeed(Option.none<Record<string, unknown>>())
        const parsed = parseJson(message.data)
        if (Either.isLeft(parsed)) return Effect.fail(fail("Protocol", `malformed event: ${parsed.left}`))
        const value = parsed.right
        if (!isObject(value)) return Effect.succeed(Option.none<Record<string, unknown>>())
        const method = value["method"]
        if (typeof method === "string") {
          // The server's own ids are numbered apart from ours: a message with a method is never our reply.
          const handled = "id" in value ? Effect.forkDaemon(answer(value["id"], method)) : onNotification(method)
          return Effect.as(handled, Option.none<Record<string, unknown>>())
        }
        return Effect.succeed(Option.some(value))
      }),
      Stream.filterMap((reply) => reply)
    )

  /** The reply with `id` from an SSE body, handling the notifications and requests met on the way. */
  const fromEvents = (response: HttpClientResponse.HttpClientResponse, id: number) =>
    events(response).pipe(
      Stream.filter((value) => value["id"] === id),
      Stream.runHead,
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(fail("Protocol", "the event stream ended without a reply")),
        onSome: Effect.succeed
      }))
    )

  /**
   * POSTs one message — a request, a notification, or a reply to the
   * server's request; for a request, reads and returns the reply.
   */
  const post = (message: Outgoing | Record<string, unknown>, fresh = false): Effect.Effect<unknown, McpError | SessionExpired> =>
    Effect.scoped(Effect.gen(function*() {
      const sentSession = fresh ? undefined : session
      const request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders({
          accept: "application/json, text/event-stream",
          ...(sentSession === undefined ? {} : { "mcp-session-id": sentSession }),
          ...(protocol === undefined || fresh ? {} : { "mcp-protocol-version": protocol })
        }),
        HttpClientRequest.bodyUnsafeJson(message),
        authorized
      )
      const { response } = yield* transport.send(request).pipe(Effect.mapError((failure) => sendFailure(failure, sentSession)))
      const issued = response.headers["mcp-session-id"]
      if (issued !== undefined && issued !== "") session = issued
      const id = message["id"]
      if (typeof id !== "number" || "result" in message || "error" in message) return undefined
      const type = (response.headers["content-type"] ?? "").toLowerCase()
      if (type.includes("text/event-stream")) return yield* fromEvents(response, id)
      const text = yield* transport.text(response).pipe(Effect.mapError((error) => fail("Unreachable", error.detail)))
      return yield* Either.mapLeft(parseJson(text), (detail) => fail("Protocol", `malformed reply: ${detail}`))
    }))

  /**
   * One standalone GET stream, where a server sends what no request caused
   * (`tools/list_changed` after its tools changed), read until it ends. A
   * server that offers none answers 405: nothing to listen to.
   */
  const getStream = Effect.scoped(Effect.gen(function*() {
    const sentSession = session
    const request = HttpClientRequest.get(url).pipe(
      HttpClientRequest.setHeaders({
        accept: "text/event-stream",
        ...(sentSession === undefined ? {} : { "mcp-session-id": sentSession }),
        ...(protocol === undefined ? {} : { "mcp-protocol-version": protocol })
      }),
      authorized
    )
    const { response } = yield* transport.send(request).pipe(Effect.mapError((failure) => sendFailure(failure, sentSession)))
    yield* Stream.runDrain(events(response))
  }))

  /** The GET stream, opened again (with the backoff) when it ends or breaks; not when the server has none. */
  const listen = getStream.pipe(
    Effect.zipRight(Effect.fail(fail("Unreachable", "the event stream ended"))),
    Effect.retry({
      schedule: backoff(5),
      while: (error) => error._tag === "McpError" && error.reason === "Unreachable"
    }),
    Effect.catchAll((error) =>
      error._tag === "McpError" && error.detail.startsWith("HTTP 405")
        ? Effect.void
        : Effect.logDebug(`MCP server ${name}: no longer listening for notifications (${error._tag === "McpError" ? error.detail : "session expired"})`))
  )

  return {
    listen,
    request: post,
    notify: (message) => Effect.asVoid(post(message)),
    agreed: (version) =>
      Effect.sync(() => {
        protocol = version
      }),
    close: Effect.suspend(() => {
      if (session === undefined) return Effect.void
      const request = authorized(HttpClientRequest.del(url).pipe(HttpClientRequest.setHeader("mcp-session-id", session)))
      return Effect.ignore(Effect.scoped(transport.send(request)))
    })
  }
}
