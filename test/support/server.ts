/**
 * An easyai server on a free loopback port, and helpers to talk to it: the
 * real listener (`ServerLive`), so every test goes over a real socket.
 */
import { HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { createParser } from "eventsource-parser"
import { Effect, Schedule, Schema, Stream } from "effect"
import { ScriptedChatModel } from "easyai/testing"

/** The server's base URL, e.g. `http://127.0.0.1:40123`. */
export const baseUrl = Effect.map(HttpServer.HttpServer, (server) =>
  server.address._tag === "TcpAddress" ? `http://127.0.0.1:${server.address.port}` : server.address.path)

/** The server on a free loopback port with a client that reaches it, and one whose model replays a script. */
export { scriptedServer, testServer as served } from "easyai/testing"

/** A user message's text without the clock note it carries to the model ("\n\nSent: …"). */
export const withoutClock = (text: string): string => text.split("\n\nSent: ")[0] ?? text

/** What the scripted model has been asked so far. */
export const scriptedRequests = Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)

/** Waits until the scripted model has received `count` requests. */
export const requestsReach = (count: number) =>
  scriptedRequests.pipe(
    Effect.repeat({ until: (all) => all.length >= count, schedule: Schedule.spaced("20 millis") }),
    Effect.timeout("30 seconds")
  )

/** A whole response. */
export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

/** What a request sends. */
export interface Send {
  readonly json?: unknown
  readonly body?: string
  readonly headers?: Readonly<Record<string, string>>
}

/** Sends a request and reads the whole response. */
export const send = (method: "GET" | "POST" | "DELETE" | "OPTIONS", path: string, what: Send = {}) =>
  Effect.scoped(Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const base = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeaders(what.headers ?? {}))
    const request = what.json !== undefined
      ? HttpClientRequest.bodyUnsafeJson(base, what.json)
      : what.body !== undefined
      ? HttpClientRequest.bodyText(base, what.body, "application/json")
      : base
    const response = yield* client.execute(request)
    return { status: response.status, headers: response.headers, text: yield* response.text } satisfies Reply
  }))

/** `POST /v1/chat/completions`. */
export const chat = (body: unknown, headers?: Readonly<Record<string, string>>) =>
  send("POST", "/v1/chat/completions", { json: body, ...(headers === undefined ? {} : { headers }) })

/** A response body as JSON. */
export const json = (reply: Reply): unknown => Schema.decodeUnknownSync(Schema.parseJson())(reply.text)

/** A JSON object's field, for reading bodies in assertions. */
export const field = (value: unknown, ...path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>(
    (at, key) => (typeof at === "object" && at !== null ? new Map(Object.entries(at)).get(String(key)) : undefined),
    value
  )

/** One server-sent event. */
export interface SseFrame {
  readonly event: string | undefined
  readonly data: string
}

/** The events of an SSE body. */
export const sseFrames = (body: string): ReadonlyArray<SseFrame> => {
  const frames: Array<SseFrame> = []
  const parser = createParser({ onEvent: (event) => frames.push({ event: event.event, data: event.data }) })
  parser.feed(body)
  return frames
}

/** The text a stream carried in `delta.content`, in order. */
export const streamedContent = (frames: ReadonlyArray<SseFrame>): string =>
  frames
    .filter((frame) => frame.event === undefined && frame.data !== "[DONE]")
    .map((frame) => field(JSON.parse(frame.data), "choices", 0, "delta", "content"))
    .filter((content): content is string => typeof content === "string")
    .join("")

/**
 * Opens a streamed chat and hands the open body to `use`, which may stop
 * reading at any point: leaving the scope closes the connection, as a
 * client that goes away does.
 */
export const openStream = (body: Readonly<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post("/v1/chat/completions"), { ...body, stream: true })
    )
    return { status: response.status, body: response.stream.pipe(Stream.decodeText()) }
  })
