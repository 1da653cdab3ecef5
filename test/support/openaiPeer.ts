/**
 * A real OpenAI-compatible server on 127.0.0.1 (a free port), for testing
 * the remote client over a real socket. It replays `ScriptedChatModel`
 * turns as SSE — tool-call arguments split across chunks, several calls'
 * fragments interleaved and sent highest index first — records every
 * request, serves the management endpoints, and has fault knobs.
 *
 * ```ts
 * const peer = yield* openaiPeer({ turns: [ScriptedChatModel.reply("Hi.")], faults: { failFirst: { status: 503, times: 2 } } })
 * ```
 */
import { Duration, Effect, type Scope } from "effect"
import type { ScriptedChatModel } from "easyai/testing"
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse
} from "node:http"
import { createServer as createHttpsServer } from "node:https"

/** A self-signed certificate for 127.0.0.1 and localhost (test fixture only; valid until 2126). */
export const peerCertificate = `-----BEGIN CERTIFICATE-----
MIIBqTCCAU+gAwIBAgIUSM//qByBLnU/4DW0t9elUBPBHjIwCgYIKoZIzj0EAwIw
GzEZMBcGA1UEAwwQZWFzeWFpLXRlc3QtcGVlcjAgFw0yNjExMjEyMjMwMTdaGA8y
MTI2MTAyODIyMzAxN1owGzEZMBcGA1UEAwwQZWFzeWFpLXRlc3QtcGVlcjBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABCJbK56196ttVegj6q4ItFYiUt1S/qlNy1j6
p2VonoejCDkSdv5ErlNgeAd3WXwvxzvXhTRwoqBo8k2qqdH40b6jbzBtMB0GA1Ud
DgQWBBTf98GxvpA52M4FTsaTG30/mD2Q8zAfBgNVHSMEGDAWgBTf98GxvpA52M4F
TsaTG30/mD2Q8zAPBgNVHRMBAf8EBTADAQH/MBoGA1UdEQQTMBGHBH8AAAGCCWxv
Y2FsaG9zdDAKBggqhkjOPQQDAgNIADBFAiEA3FRNpw6eL5R7bWai9YzyFsXTIBJr
AGpC2nJ1DxleizwCIEEie779E9VF1pWiZCMajlFnnzCyfTHFLE0lruz10fVu
-----END CERTIFICATE-----
`

const peerKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgRk/igCV36CQ78Ipf
6i1SRE0GDucYBUWmd1YZfa80u1ehRANCAAQiWyuetferbVXoI+quCLRWIlLdUv6p
TctY+qdlaJ6Howg5Enb+RK5TYHgHd1l8L8c714U0cKKgaPJNqqnR+NG+
-----END PRIVATE KEY-----
`

/** One request the peer received. */
export interface RecordedRequest {
  readonly method: string
  /** Path and query. */
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** The body parsed as JSON; the raw text when it is not JSON; undefined when empty. */
  readonly body: unknown
}

/** Ways the peer misbehaves. Counters apply to the first requests or connections of the peer's life. */
export interface Faults {
  /** Destroys the first N TCP connections as soon as they open. */
  readonly dropConnections?: number
  /** Answers the first `times` requests (any endpoint) with `status` and `body`. */
  readonly failFirst?: { readonly status: number; readonly times: number; readonly body?: string }
  /** Answers every request with `status` and `body`. */
  readonly failAlways?: { readonly status: number; readonly body?: string }
  /** Holds the first N chat requests without answering anything (a stall before the first byte). */
  readonly stallBeforeHeaders?: number
  /** Destroys the connection after writing K SSE chunks. */
  readonly cutAfterChunks?: number
  /** Stops writing, holding the connection open, after K SSE chunks (a stall after the first byte). */
  readonly stallAfterChunks?: number
  /** Replaces the SSE chunk at position K (0-based) with malformed JSON. */
  readonly malformedAt?: number
  /** Answers chats with one whole `application/json` completion instead of SSE. */
  readonly nonStreaming?: boolean
  /** Leaves out `data: [DONE]`. */
  readonly omitDone?: boolean
  /** Leaves out `finish_reason` (with `omitDone`: a body that just stops). */
  readonly omitFinish?: boolean
}

/** What the peer serves. */
export interface PeerOptions {
  /** The chat turns, one per chat request, in order. */
  readonly turns?: ReadonlyArray<ScriptedChatModel.Turn>
  readonly faults?: Faults
  /** Serve https with {@link peerCertificate}. */
  readonly tls?: boolean
  /** When set, `/v1/*` requests must carry `Authorization: Bearer <apiKey>` or get 401. */
  readonly apiKey?: string
  /** Bodies of the management endpoints, replacing the defaults. */
  readonly management?: {
    readonly models?: unknown
    readonly tools?: unknown
    readonly health?: unknown
    readonly props?: unknown
    readonly metrics?: string
  }
}

/** A running peer. */
export interface Peer {
  /** `http://127.0.0.1:<port>` (or https), without `/v1`. */
  readonly url: string
  /** Every request received, in order (live array). */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The chat requests' bodies, in order. */
  readonly chatBodies: () => ReadonlyArray<Record<string, unknown>>
  /** TCP connections opened so far. */
  readonly connections: () => number
  /** Responses whose client went away before the peer finished them. */
  readonly aborted: () => number
  /** Waits (without any clock) until `condition` holds; it is checked on every peer event. */
  readonly waitFor: (condition: () => boolean) => Effect.Effect<void>
}

type Piece =
  | { readonly _tag: "Chunk"; readonly json: string }
  | { readonly _tag: "Pause"; readonly millis: number }

/** Pauses this long or longer hold the response until the client goes away. */
const holdForever = 60_000

const durationMillis = (duration: Duration.DurationInput): number => Duration.toMillis(Duration.decode(duration))

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const chunkJson = (delta: Record<string, unknown>, finish: string | null = null): string =>
  JSON.stringify({
    id: "chatcmpl-peer",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "peer-model",
    system_fingerprint: "peer",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }]
  })

interface PeerCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/** Splits text into `parts` pieces that concatenate back to it. */
const split = (text: string, parts: number): ReadonlyArray<string> => {
  const size = Math.max(1, Math.ceil(text.length / parts))
  const out: Array<string> = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

/** The fragments of a group of tool calls: headers then argument pieces, round-robin, highest index first. */
const callFragments = (calls: ReadonlyArray<PeerCall>, firstIndex: number): ReadonlyArray<string> => {
  const perCall = calls.map((call, offset) => {
    const index = firstIndex + offset
    const header = {
      index,
      ...(call.id === "" ? {} : { id: call.id }),
      type: "function",
      function: { name: call.name, arguments: "" }
    }
    return [header, ...split(call.arguments, 3).map((piece) => ({ index, function: { arguments: piece } }))]
  }).reverse()
  const out: Array<string> = []
  const longest = Math.max(0, ...perCall.map((fragments) => fragments.length))
  for (let round = 0; round < longest; round++) {
    for (const fragments of perCall) {
      const fragment = fragments[round]
      if (fragment !== undefined) out.push(chunkJson({ tool_calls: [fragment] }))
    }
  }
  return out
}

interface Rendered {
  readonly pieces: ReadonlyArray<Piece>
  readonly whole: Record<string, unknown>
}

/** A scripted turn as SSE pieces, and as one whole completion. */
const render = (turn: ScriptedChatModel.Turn, faults: Faults): Rendered => {
  const pieces: Array<Piece> = [{ _tag: "Chunk", json: chunkJson({ role: "assistant", content: null }) }]
  const chunk = (json: string) => pieces.push({ _tag: "Chunk", json })
  let text = ""
  let reasoning = ""
  const calls: Array<PeerCall> = []
  let group: Array<PeerCall> = []
  let finish: string | undefined
  let usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined
  let failed = false
  const flush = () => {
    if (group.length === 0) return
    for (const json of callFragments(group, calls.length - group.length)) chunk(json)
    group = []
  }
  for (const step of turn) {
    if (step._tag !== "ToolCallRequested") flush()
    switch (step._tag) {
      case "TextDelta":
        text += step.text
        chunk(chunkJson({ content: step.text }))
        break
      case "ReasoningDelta":
        reasoning += step.text
        chunk(chunkJson({ reasoning_content: step.text }))
        break
      case "ToolCallRequested": {
        const call = { id: step.call.id, name: step.call.name, arguments: step.call.arguments }
        calls.push(call)
        group.push(call)
        break
      }
      case "Usage":
        usage = {
          prompt_tokens: step.promptTokens,
          completion_tokens: step.completionTokens,
          total_tokens: step.promptTokens + step.completionTokens
        }
        break
      case "Finished":
        finish = step.reason
        break
      case "PromptProgress":
        break
      case "Delay":
        pieces.push({ _tag: "Pause", millis: durationMillis(step.duration) })
        break
      case "Fail":
        chunk(JSON.stringify({ error: { message: step.error.message, type: "server_error", code: 500 } }))
        failed = true
        break
    }
    if (failed) break
  }
  flush()
  const reason = finish ?? (calls.length > 0 ? "tool_calls" : "stop")
  if (!failed) {
    if (faults.omitFinish !== true) chunk(chunkJson({}, reason))
    if (usage !== undefined) chunk(JSON.stringify({ id: "chatcmpl-peer", object: "chat.completion.chunk", choices: [], usage }))
  }
  const whole = {
    id: "chatcmpl-peer",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "peer-model",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: text === "" && calls.length > 0 ? null : text,
        ...(reasoning === "" ? {} : { reasoning_content: reasoning }),
        ...(calls.length === 0 ? {} : {
          tool_calls: calls.map((call) => ({
            ...(call.id === "" ? {} : { id: call.id }),
            type: "function",
            function: { name: call.name, arguments: call.arguments }
          }))
        })
      },
      finish_reason: reason
    }],
    ...(usage === undefined ? {} : { usage })
  }
  return { pieces, whole }
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
}

/** Starts a peer; it is closed (every connection destroyed) when the scope closes. */
export const openaiPeer = (options: PeerOptions = {}): Effect.Effect<Peer, never, Scope.Scope> => {
  const faults = options.faults ?? {}
  const requests: Array<RecordedRequest> = []
  const listeners = new Set<() => void>()
  const notify = () => {
    for (const listener of [...listeners]) listener()
  }
  const turns = [...(options.turns ?? [])]
  let connections = 0
  let aborted = 0
  let failedSoFar = 0
  let stalledSoFar = 0

  /** Writes the pieces; resolves when done or when the client went away. */
  const play = async (res: ServerResponse, pieces: ReadonlyArray<Piece>): Promise<void> => {
    let gone = false
    let wake: (() => void) | undefined
    res.on("close", () => {
      gone = true
      wake?.()
    })
    const pause = (millis: number) =>
      new Promise<void>((resolve) => {
        wake = resolve
        if (millis < holdForever) setTimeout(resolve, millis)
      })
    let written = 0
    for (const piece of pieces) {
      if (gone) return
      if (piece._tag === "Pause") {
        await pause(piece.millis)
        continue
      }
      if (faults.stallAfterChunks !== undefined && written >= faults.stallAfterChunks) return pause(holdForever)
      const data = faults.malformedAt === written ? "{\"choices\": [{\"delta\": {\"content\": \"oops" : piece.json
      res.write(`data: ${data}\n\n`)
      written++
      if (faults.cutAfterChunks !== undefined && written >= faults.cutAfterChunks) {
        // Let the written bytes reach the client, then break the connection mid-body.
        await new Promise((resolve) => setImmediate(resolve))
        res.socket?.destroy()
        return
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
    if (faults.omitDone !== true) res.write("data: [DONE]\n\n")
    res.end()
  }

  const chat = (_req: RecordedRequest, res: ServerResponse): void => {
    if (faults.stallBeforeHeaders !== undefined && stalledSoFar < faults.stallBeforeHeaders) {
      stalledSoFar++
      return // never answered; the client gives up
    }
    const turn = turns.shift()
    if (turn === undefined) return json(res, 500, { error: { message: "the peer has no turn left", type: "server_error" } })
    const rendered = render(turn, faults)
    if (faults.nonStreaming === true) return json(res, 200, rendered.whole)
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
    res.flushHeaders()
    void play(res, rendered.pieces)
  }

  const management = options.management ?? {}
  const routes: Record<string, (req: RecordedRequest, res: ServerResponse) => void> = {
    "POST /v1/chat/completions": chat,
    "GET /v1/models": (_req, res) =>
      json(res, 200, management.models ?? {
        object: "list",
        data: [{ id: "peer-model", object: "model", created: 1_700_000_000, owned_by: "easyai", meta: { n_ctx_train: 4096 } }]
      }),
    "GET /v1/tools": (_req, res) =>
      json(res, 200, management.tools ?? {
        tools: [
          { type: "function", function: { name: "datetime", description: "Current date and time.", parameters: { type: "object", properties: {} } } },
          { name: "web_search", description: "Search the web.", parameters: { type: "object", properties: { query: { type: "string" } } } }
        ]
      }),
    "GET /health": (_req, res) => json(res, 200, management.health ?? { status: "ok", slots_idle: 1 }),
    "GET /props": (_req, res) => json(res, 200, management.props ?? { n_ctx: 4096, model_alias: "peer-model", build_info: "peer" }),
    "GET /metrics": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4" })
        .end(management.metrics ?? "# TYPE easyai_requests_total counter\neasyai_requests_total 3\n")
    },
    "POST /v1/preset": (req, res) => json(res, 200, { ok: true, preset: isRecord(req.body) ? req.body["preset"] : null })
  }

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      let body: unknown = undefined
      if (text !== "") {
        try {
          body = JSON.parse(text)
        } catch {
          body = text
        }
      }
      const recorded: RecordedRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body }
      requests.push(recorded)
      res.on("close", () => {
        if (!res.writableFinished) aborted++
        notify()
      })
      notify()
      if (faults.failAlways !== undefined) {
        res.writeHead(faults.failAlways.status, { "content-type": "application/json" }).end(faults.failAlways.body ?? "")
        return
      }
      if (faults.failFirst !== undefined && failedSoFar < faults.failFirst.times) {
        failedSoFar++
        res.writeHead(faults.failFirst.status, { "content-type": "application/json" }).end(faults.failFirst.body ?? "")
        return
      }
      const path = new URL(recorded.path, "http://peer").pathname
      if (options.apiKey !== undefined && path.startsWith("/v1/") && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return json(res, 401, { error: { message: "Invalid API key", type: "authentication_error" } })
      }
      const route = routes[`${recorded.method} ${path}`]
      if (route === undefined) return json(res, 404, { error: { message: `no route ${recorded.method} ${path}` } })
      route(recorded, res)
    })
  }

  return Effect.acquireRelease(
    Effect.async<Server>((resume) => {
      const server: Server = options.tls === true
        ? createHttpsServer({ cert: peerCertificate, key: peerKey }, handle)
        : createHttpServer(handle)
      server.on("connection", (socket) => {
        connections++
        if (faults.dropConnections !== undefined && connections <= faults.dropConnections) socket.destroy()
        notify()
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server): Peer => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    return {
      url: `${options.tls === true ? "https" : "http"}://127.0.0.1:${port}`,
      requests,
      chatBodies: () =>
        requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => (isRecord(r.body) ? r.body : {})),
      connections: () => connections,
      aborted: () => aborted,
      waitFor: (condition) =>
        Effect.async<void>((resume) => {
          if (condition()) return resume(Effect.void)
          const listener = () => {
            if (!condition()) return
            listeners.delete(listener)
            resume(Effect.void)
          }
          listeners.add(listener)
          return Effect.sync(() => listeners.delete(listener))
        })
    }
  }))
}
