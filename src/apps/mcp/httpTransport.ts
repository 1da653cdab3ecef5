/**
 * MCP's Streamable HTTP transport, the JSON-response half: every POST to
 * `/mcp` carries one JSON-RPC message and is answered with JSON. This
 * server never pushes messages of its own (its tool list is fixed while it
 * runs), so `GET /mcp` — the server-to-client stream — answers 405.
 *
 * | request | answer |
 * |---|---|
 * | POST, a request | 200 with the JSON-RPC reply |
 * | POST, a notification or a reply | 202, no body |
 * | POST, `Accept` without `application/json` | 406 |
 * | POST, not `application/json` | 415 |
 * | POST, not JSON / not JSON-RPC / a batch | 400 with a JSON-RPC error (`-32700` / `-32600`) |
 * | POST, body over the limit | 413 |
 * | POST, a request while the most requests already run | 503 with `Retry-After` and a JSON-RPC error (`-32000`) |
 * | sessions on: `initialize` | a new `Mcp-Session-Id` header |
 * | sessions on: no `Mcp-Session-Id` after that | 400; an unknown one: 404 (the client starts again with `initialize`) |
 * | DELETE with the session's id | 200, the session ends |
 * | an unsupported `MCP-Protocol-Version` | 400 |
 *
 * @module
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either } from "effect"
import { errorReply, isSupportedVersion, JsonRpcErrorCode, type JsonRpcResponse } from "../../domain/mcp.js"
import type { Admission } from "../server/admission.js"
import { readBodyText } from "../server/jsonBody.js"
import { classifyText, type Dispatcher, type Incoming, negotiateVersion } from "./dispatcher.js"

/** How the transport keeps sessions and bounds requests. */
export interface HttpTransportOptions {
  /** Issue and require `Mcp-Session-Id`. Default true. */
  readonly sessions?: boolean
  /** The most live sessions; the oldest is forgotten past it. Default 10 000. */
  readonly maxSessions?: number
  /** The largest body accepted, in bytes. Default 8 MiB. */
  readonly maxBytes?: number
}

/** The `/mcp` handlers. */
export interface HttpTransport {
  readonly post: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>
  readonly remove: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>
  readonly get: Effect.Effect<HttpServerResponse.HttpServerResponse>
  /** How many sessions are live, for `/health`. */
  readonly sessionCount: Effect.Effect<number>
}

const reply = (status: number, body: JsonRpcResponse, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers })

const refuse = (status: number, message: string) => reply(status, errorReply(null, JsonRpcErrorCode.InvalidRequest, message))

const accepts = (accept: string | undefined): boolean => {
  if (accept === undefined || accept.trim() === "") return true
  const types = accept.toLowerCase().split(",").map((part) => part.split(";")[0]?.trim() ?? "")
  return types.some((type) => type === "application/json" || type === "application/*" || type === "*/*")
}

const isJson = (contentType: string | undefined): boolean => {
  const type = contentType?.toLowerCase().split(";")[0]?.trim() ?? ""
  return type === "application/json" || type.endsWith("+json")
}

/**
 * The transport over `dispatcher`. Each request runs only once `gate`
 * admits it; a full gate answers 503 at once (notifications run nothing
 * and pass).
 */
export const make = (dispatcher: Dispatcher, gate: Pick<Admission, "enter">, options: HttpTransportOptions = {}): HttpTransport => {
  const useSessions = options.sessions ?? true
  const maxSessions = Math.max(1, options.maxSessions ?? 10_000)
  const maxBytes = options.maxBytes ?? 8 * 1024 * 1024
  // Session id → negotiated protocol version. Owned by this transport; touched only in synchronous steps.
  const sessions = new Map<string, string>()

  const openSession = (version: string): string => {
    const id = globalThis.crypto.randomUUID()
    sessions.set(id, version)
    if (sessions.size > maxSessions) {
      const oldest = sessions.keys().next()
      if (oldest.done !== true) sessions.delete(oldest.value)
    }
    return id
  }

  /** The reply to `message`, or the refusal of a full gate. */
  const admitted = (message: Incoming) =>
    message._tag !== "Request" ? dispatcher.handle(message) : Effect.scoped(Effect.zipRight(gate.enter, dispatcher.handle(message)))

  const post = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const headers = request.headers
    if (!accepts(headers["accept"])) return refuse(406, "Not Acceptable: this server answers application/json")
    if (!isJson(headers["content-type"])) return refuse(415, "Unsupported Media Type: send application/json")
    const protocol = headers["mcp-protocol-version"]
    if (protocol !== undefined && !isSupportedVersion(protocol)) {
      return refuse(400, `unsupported MCP-Protocol-Version: ${protocol.slice(0, 40)}`)
    }
    const text = yield* Effect.either(readBodyText(maxBytes))
    if (Either.isLeft(text)) return refuse(text.left.status, text.left.detail)
    const incoming = classifyText(text.right)
    if (Either.isLeft(incoming)) return reply(400, incoming.left)
    const message = incoming.right

    const initializing = message._tag === "Request" && message.method === "initialize"
    if (useSessions && !initializing) {
      const session = headers["mcp-session-id"]
      if (session === undefined) return refuse(400, "Bad Request: missing Mcp-Session-Id; start with initialize")
      if (!sessions.has(session)) return refuse(404, "Not Found: unknown or expired session; start again with initialize")
    }
    const outcome = yield* Effect.either(admitted(message))
    if (Either.isLeft(outcome)) {
      const busy = outcome.left
      const id = message._tag === "Request" ? message.id : null
      return reply(
        503,
        errorReply(id, JsonRpcErrorCode.ServerBusy, "server busy: the most requests this server runs at once are running; retry after the Retry-After seconds"),
        busy.retryAfter === undefined ? {} : { "retry-after": String(busy.retryAfter) }
      )
    }
    const answer = outcome.right
    if (answer === undefined) return HttpServerResponse.empty({ status: 202 })
    if (useSessions && initializing && answer.error === undefined) {
      const session = openSession(message._tag === "Request" ? negotiateVersion(message.params) : "")
      return reply(200, answer, { "mcp-session-id": session })
    }
    return reply(200, answer)
  })

  const remove = Effect.gen(function*() {
    if (!useSessions) return refuse(405, "Method Not Allowed: this server keeps no sessions")
    const session = (yield* HttpServerRequest.HttpServerRequest).headers["mcp-session-id"]
    if (session === undefined) return refuse(400, "Bad Request: missing Mcp-Session-Id")
    if (!sessions.delete(session)) return refuse(404, "Not Found: unknown or expired session")
    return HttpServerResponse.empty({ status: 200 })
  })

  const get = Effect.succeed(
    HttpServerResponse.empty({ status: 405, headers: { allow: useSessions ? "POST, DELETE" : "POST" } })
  )

  return { post, remove, get, sessionCount: Effect.sync(() => sessions.size) }
}
