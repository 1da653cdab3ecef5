/**
 * MCP's Streamable HTTP transport over a real loopback socket: the
 * standalone app (`McpServerApp` on `ServerLive.serve`), and the `/mcp`
 * routes `easyai serve` mounts next to its chat API. Raw HTTP, so every
 * status, header and body is the server's own.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Exit, Fiber, Redacted, Schedule, Scope, Stream } from "effect"
import { Tool } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { connect } from "node:net"
import {
  callParams,
  initializeParams,
  McpEndpoint,
  mcpPost,
  mcpSend,
  openSession,
  rpcNotification,
  rpcRequest,
  serveStandalone,
  specVersions,
  standalone,
  toolsLayer
} from "../../support/mcp.js"
import { field, json, type Reply, served } from "../../support/server.js"
import { echo } from "../../support/tools.js"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** A JSON-RPC error reply with `status`, `code` and a message containing `text`. */
const expectRpcError = (reply: Reply, status: number, code: number, text: string) => {
  expect(reply.status).toBe(status)
  expect(reply.headers["content-type"]).toContain("application/json")
  const body = json(reply)
  expect(field(body, "jsonrpc")).toBe("2.0")
  expect(field(body, "error", "code")).toBe(code)
  expect(String(field(body, "error", "message"))).toContain(text)
}

/** A successful JSON-RPC reply's result. */
const resultOf = (reply: Reply, id: number | string): unknown => {
  expect(reply.status).toBe(200)
  expect(reply.headers["content-type"]).toContain("application/json")
  const body = json(reply)
  expect(field(body, "id")).toBe(id)
  expect(field(body, "error")).toBeUndefined()
  return field(body, "result")
}

/** A ping on the session: the server still answers. */
const stillServes = (headers: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    expect(resultOf(yield* mcpPost(rpcRequest("alive", "ping"), headers), "alive")).toEqual({})
  })

const health = Effect.map(mcpSend("GET", {}, "/health"), (reply) => {
  expect(reply.status).toBe(200)
  return json(reply)
})

describe("the standalone MCP app over HTTP", () => {
  describe("sessions", () => {
    it.live("initialize issues an Mcp-Session-Id; later requests need it: none → 400, unknown → 404, right → 200", () =>
      Effect.gen(function*() {
        const initialized = yield* mcpPost(rpcRequest(1, "initialize", initializeParams()))
        const result = resultOf(initialized, 1)
        expect(field(result, "protocolVersion")).toBe("2025-11-25")
        expect(field(result, "serverInfo", "name")).toBe("easyai")
        const session = initialized.headers["mcp-session-id"]
        expect(session).toMatch(uuid)

        const missing = yield* mcpPost(rpcRequest(2, "tools/list"))
        expectRpcError(missing, 400, -32600, "missing Mcp-Session-Id")
        const unknown = yield* mcpPost(rpcRequest(3, "tools/list"), { "mcp-session-id": "00000000-0000-4000-8000-000000000000" })
        expectRpcError(unknown, 404, -32600, "unknown or expired session")
        const known = yield* mcpPost(rpcRequest(4, "tools/list"), { "mcp-session-id": session ?? "" })
        expect(field(resultOf(known, 4), "tools", 0, "name")).toBe("echo")
        // A notification needs the session too.
        expect((yield* mcpPost(rpcNotification("notifications/initialized"))).status).toBe(400)
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("each initialize opens its own session", () =>
      Effect.gen(function*() {
        const first = yield* openSession()
        const second = yield* openSession()
        expect(first.session).toMatch(uuid)
        expect(second.session).toMatch(uuid)
        expect(first.session).not.toBe(second.session)
        yield* stillServes(first.sessionHeaders)
        yield* stillServes(second.sessionHeaders)
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("negotiates the version the client asks for, over HTTP too", () =>
      Effect.gen(function*() {
        for (const version of specVersions) {
          const { initialized } = yield* openSession({}, version)
          expect(field(resultOf(initialized, 0), "protocolVersion")).toBe(version)
        }
        const { initialized } = yield* openSession({}, "2030-01-01")
        expect(field(resultOf(initialized, 0), "protocolVersion")).toBe("2025-11-25")
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("a POST of a notification only is 202 with an empty body; so is a reply", () =>
      Effect.gen(function*() {
        const { acknowledged, sessionHeaders } = yield* openSession()
        expect(acknowledged.status).toBe(202)
        expect(acknowledged.text).toBe("")
        const cancelled = yield* mcpPost(rpcNotification("notifications/cancelled", { requestId: 1 }), sessionHeaders)
        expect(cancelled.status).toBe(202)
        expect(cancelled.text).toBe("")
        const reply = yield* mcpPost({ jsonrpc: "2.0", id: 99, result: {} }, sessionHeaders)
        expect(reply.status).toBe(202)
        expect(reply.text).toBe("")
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("DELETE ends the session: then it is 404, and so is a second DELETE", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        expect(field(yield* health, "sessions")).toBe(1)
        const deleted = yield* mcpSend("DELETE", { headers: sessionHeaders })
        expect(deleted.status).toBe(200)
        expect(field(yield* health, "sessions")).toBe(0)
        expectRpcError(yield* mcpPost(rpcRequest(1, "ping"), sessionHeaders), 404, -32600, "start again with initialize")
        expectRpcError(yield* mcpSend("DELETE", { headers: sessionHeaders }), 404, -32600, "unknown or expired session")
        expectRpcError(yield* mcpSend("DELETE"), 400, -32600, "missing Mcp-Session-Id")
        // A new initialize starts over.
        yield* stillServes((yield* openSession()).sessionHeaders)
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("forgets the oldest session past maxSessions", () =>
      Effect.gen(function*() {
        const first = yield* openSession()
        const second = yield* openSession()
        const third = yield* openSession()
        expect((yield* mcpPost(rpcRequest(1, "ping"), first.sessionHeaders)).status).toBe(404)
        yield* stillServes(second.sessionHeaders)
        yield* stillServes(third.sessionHeaders)
        expect(field(yield* health, "sessions")).toBe(2)
      }).pipe(Effect.provide(standalone({ maxSessions: 2 }, { tools: [echo] }))))

    it.live("with sessions off, no id is issued or needed, and DELETE is 405", () =>
      Effect.gen(function*() {
        const initialized = yield* mcpPost(rpcRequest(1, "initialize", initializeParams()))
        expect(field(resultOf(initialized, 1), "protocolVersion")).toBe("2025-11-25")
        expect(initialized.headers["mcp-session-id"]).toBeUndefined()
        const called = resultOf(yield* mcpPost(rpcRequest(2, "tools/call", callParams("echo", { text: "stateless" }))), 2)
        expect(field(called, "content", 0, "text")).toBe("stateless")
        // An id the server never issued is ignored, not refused.
        yield* stillServes({ "mcp-session-id": "whatever" })
        expect((yield* mcpPost(rpcNotification("notifications/initialized"))).status).toBe(202)
        expectRpcError(yield* mcpSend("DELETE", { headers: { "mcp-session-id": "whatever" } }), 405, -32600, "keeps no sessions")
        const get = yield* mcpSend("GET")
        expect(get.status).toBe(405)
        expect(get.headers["allow"]).toBe("POST")
        expect(field(yield* health, "sessions")).toBe(0)
      }).pipe(Effect.provide(standalone({ sessions: false }, { tools: [echo] }))))
  })

  describe("tools over HTTP", () => {
    it.live("tools/list and tools/call go through on the session", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        const list = resultOf(yield* mcpPost(rpcRequest(1, "tools/list"), sessionHeaders), 1)
        expect(field(list, "tools", 0, "name")).toBe("echo")
        expect(field(list, "tools", 0, "inputSchema", "type")).toBe("object")
        const called = resultOf(yield* mcpPost(rpcRequest(2, "tools/call", callParams("echo", { text: "over http" })), sessionHeaders), 2)
        expect(called).toEqual({ content: [{ type: "text", text: "over http" }], isError: false })
        const bad = resultOf(yield* mcpPost(rpcRequest(3, "tools/call", callParams("echo", { text: 1 })), sessionHeaders), 3)
        expect(field(bad, "isError")).toBe(true)
        expect(String(field(bad, "content", 0, "text"))).toContain("expected a string")
        const unknown = yield* mcpPost(rpcRequest(4, "no/such/method"), sessionHeaders)
        expect(unknown.status).toBe(200)
        expect(field(json(unknown), "error", "code")).toBe(-32601)
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("the allow-list hides tools from tools/list, /health and calls", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        const list = resultOf(yield* mcpPost(rpcRequest(1, "tools/list"), sessionHeaders), 1)
        expect(field(list, "tools")).toHaveLength(1)
        expect(field(list, "tools", 0, "name")).toBe("datetime")
        const hidden = resultOf(yield* mcpPost(rpcRequest(2, "tools/call", callParams("echo", { text: "x" })), sessionHeaders), 2)
        expect(field(hidden, "isError")).toBe(true)
        expect(field(yield* health, "tools")).toBe(1)
      }).pipe(Effect.provide(standalone({ allow: new Set(["datetime"]) }, { tools: [echo], withDefaultTools: true }))))
  })

  describe("bad input", () => {
    it.live("Accept without application/json is 406; application/json or */* alone is fine", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        expectRpcError(yield* mcpPost(rpcRequest(1, "ping"), { ...sessionHeaders, accept: "text/html" }), 406, -32600, "Not Acceptable")
        expectRpcError(yield* mcpPost(rpcRequest(1, "ping"), { ...sessionHeaders, accept: "text/event-stream" }), 406, -32600, "application/json")
        for (const accept of ["application/json", "*/*", "text/html;q=0.9, application/json;q=0.8"]) {
          expect((yield* mcpPost(rpcRequest(1, "ping"), { ...sessionHeaders, accept })).status).toBe(200)
        }
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("a body that is not application/json is 415", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        const plain = yield* mcpSend("POST", { text: JSON.stringify(rpcRequest(1, "ping")), contentType: "text/plain", headers: sessionHeaders })
        expectRpcError(plain, 415, -32600, "Unsupported Media Type")
        const form = yield* mcpSend("POST", { text: "a=1", contentType: "application/x-www-form-urlencoded", headers: sessionHeaders })
        expect(form.status).toBe(415)
        // A charset parameter is fine.
        const charset = yield* mcpSend("POST", { text: JSON.stringify(rpcRequest(1, "ping")), contentType: "application/json; charset=utf-8", headers: sessionHeaders })
        expect(charset.status).toBe(200)
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("an unsupported MCP-Protocol-Version header is 400; a supported one is fine", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        const refused = yield* mcpPost(rpcRequest(1, "ping"), { ...sessionHeaders, "mcp-protocol-version": "1999-01-01" })
        expectRpcError(refused, 400, -32600, "unsupported MCP-Protocol-Version: 1999-01-01")
        for (const version of specVersions) {
          expect((yield* mcpPost(rpcRequest(1, "ping"), { ...sessionHeaders, "mcp-protocol-version": version })).status).toBe(200)
        }
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("a body over maxBytes is 413, declared or chunked", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        const big = rpcRequest(1, "tools/call", callParams("echo", { text: "x".repeat(4096) }))
        expectRpcError(yield* mcpPost(big, sessionHeaders), 413, -32600, "larger than 1024 bytes")
        // Without a Content-Length the cap holds while the bytes arrive.
        const bytes = new TextEncoder().encode(JSON.stringify(big))
        const chunks = Stream.fromChunk(Chunk.fromIterable([bytes.slice(0, 1000), bytes.slice(1000, 3000), bytes.slice(3000)]))
        const chunked = yield* Effect.scoped(Effect.gen(function*() {
          const request = HttpClientRequest.post("/mcp").pipe(
            HttpClientRequest.setHeaders({ ...sessionHeaders, accept: "application/json" }),
            HttpClientRequest.bodyStream(chunks, { contentType: "application/json" })
          )
          const response = yield* (yield* HttpClient.HttpClient).execute(request)
          return { status: response.status, text: yield* response.text }
        }))
        expect(chunked.status).toBe(413)
        // Just under the cap goes through.
        const fits = yield* mcpPost(rpcRequest(2, "tools/call", callParams("echo", { text: "y".repeat(900) })), sessionHeaders)
        expect(field(resultOf(fits, 2), "content", 0, "text")).toBe("y".repeat(900))
      }).pipe(Effect.provide(standalone({ maxBytes: 1024 }, { tools: [echo] }))))

    it.live("malformed JSON, a batch, jsonrpc 1.0 and a 100 000-deep array are 400 with a JSON-RPC error", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        expectRpcError(yield* mcpSend("POST", { text: "{not json", headers: sessionHeaders }), 400, -32700, "parse error")
        expectRpcError(yield* mcpSend("POST", { text: "", headers: sessionHeaders }), 400, -32700, "parse error")
        expectRpcError(yield* mcpPost([rpcRequest(1, "ping")], sessionHeaders), 400, -32600, "batch requests are not supported")
        expectRpcError(yield* mcpPost({ jsonrpc: "1.0" }, sessionHeaders), 400, -32600, "not a JSON-RPC 2.0 request")
        const deep = "[".repeat(100_000) + "]".repeat(100_000)
        expectRpcError(yield* mcpSend("POST", { text: deep, headers: sessionHeaders }), 400, -32700, "nests deeper than 256")
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("GET /mcp is 405 with Allow: POST, DELETE (this server pushes nothing)", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        const get = yield* mcpSend("GET", { headers: { ...sessionHeaders, accept: "text/event-stream" } })
        expect(get.status).toBe(405)
        expect(get.headers["allow"]).toBe("POST, DELETE")
        expect(get.text).toBe("")
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("an unknown route is 404 and names the routes there are", () =>
      Effect.gen(function*() {
        const reply = yield* mcpSend("GET", {}, "/v1/models")
        expect(reply.status).toBe(404)
        expect(reply.text).toContain("/mcp and /health")
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("keeps answering after each bad input", () =>
      Effect.gen(function*() {
        const { sessionHeaders } = yield* openSession()
        const bad: ReadonlyArray<Effect.Effect<Reply, unknown, HttpClient.HttpClient>> = [
          mcpPost(rpcRequest(1, "ping"), { ...sessionHeaders, accept: "text/html" }),
          mcpSend("POST", { text: "{}", contentType: "text/plain", headers: sessionHeaders }),
          mcpPost(rpcRequest(1, "ping"), { ...sessionHeaders, "mcp-protocol-version": "bogus" }),
          mcpPost(rpcRequest(1, "tools/call", callParams("echo", { text: "z".repeat(5000) })), sessionHeaders),
          mcpSend("POST", { text: "{", headers: sessionHeaders }),
          mcpSend("POST", { text: "[".repeat(100_000), headers: sessionHeaders }),
          mcpPost([], sessionHeaders),
          mcpPost(rpcRequest(1, "ping")),
          mcpPost(rpcRequest(1, "ping"), { "mcp-session-id": "nope" }),
          mcpSend("GET"),
          mcpSend("DELETE", { headers: { "mcp-session-id": "nope" } }),
          mcpPost(rpcRequest(1, "tools/call", { arguments: {} }), sessionHeaders)
        ]
        for (const request of bad) {
          const reply = yield* request
          expect(reply.status).toBeGreaterThanOrEqual(200)
          expect([200, 400, 404, 405, 406, 413, 415]).toContain(reply.status)
          yield* stillServes(sessionHeaders)
        }
      }).pipe(Effect.provide(standalone({ maxBytes: 2048 }, { tools: [echo] }))))
  })

  describe("/health", () => {
    it.live("reports ok, the offered tools, the live sessions and the compat block", () =>
      Effect.gen(function*() {
        expect(yield* health).toEqual({ status: "ok", tools: 2, sessions: 0, compat: { mcp: ["/mcp"] } })
        yield* openSession()
        yield* openSession()
        expect(field(yield* health, "sessions")).toBe(2)
      }).pipe(Effect.provide(standalone({}, { tools: [echo, Tool.make({ name: "other", description: "Other.", handler: () => Effect.succeed("o") })] }))))
  })

  describe("the API key", () => {
    const bearer = { authorization: "Bearer k" }

    it.live("/mcp needs Authorization: Bearer <key>; /health stays open", () =>
      Effect.gen(function*() {
        const without = yield* mcpPost(rpcRequest(1, "initialize", initializeParams()))
        expect(without.status).toBe(401)
        expect(without.headers["mcp-session-id"]).toBeUndefined()
        expect((yield* mcpPost(rpcRequest(1, "initialize", initializeParams()), { authorization: "Bearer wrong" })).status).toBe(401)
        expect((yield* mcpPost(rpcRequest(1, "initialize", initializeParams()), { authorization: "k" })).status).toBe(401)
        expect((yield* mcpSend("GET")).status).toBe(401)
        expect((yield* mcpSend("DELETE", { headers: { "mcp-session-id": "x" } })).status).toBe(401)
        expect(field(yield* health, "status")).toBe("ok")

        const { initialized, sessionHeaders } = yield* openSession(bearer)
        expect(initialized.status).toBe(200)
        yield* stillServes(sessionHeaders)
        // The session id alone is not enough.
        const sessionOnly = { "mcp-session-id": sessionHeaders["mcp-session-id"] ?? "" }
        expect(sessionOnly["mcp-session-id"]).toMatch(uuid)
        expect((yield* mcpPost(rpcRequest(2, "ping"), sessionOnly)).status).toBe(401)
      }).pipe(Effect.provide(standalone({ apiKey: Redacted.make("k") }, { tools: [echo] }))))
  })

  describe("browser origins", () => {
    it.live("by default, a foreign page's POST is refused (403) before it reaches a tool; the server's own origin passes", () =>
      Effect.gen(function*() {
        const foreign = yield* mcpPost(rpcRequest(1, "initialize", initializeParams()), { origin: "https://evil.example" })
        expect(foreign.status).toBe(403)
        expect(foreign.headers["mcp-session-id"]).toBeUndefined()
        expect(field(yield* health, "sessions")).toBe(0)
        expect(foreign.headers["access-control-allow-origin"]).toBeUndefined()
        const local = yield* mcpPost(rpcRequest(1, "initialize", initializeParams()), { origin: "http://localhost:3000" })
        expect(local.status).toBe(403)
        const own = (yield* McpEndpoint).base
        const same = yield* mcpPost(rpcRequest(1, "initialize", initializeParams()), { origin: own })
        expect(same.status).toBe(200)
        // Programs that send no Origin are not affected.
        expect((yield* openSession()).initialized.status).toBe(200)
      }).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

    it.live("with cors *, any origin may call, and the preflight admits the MCP headers", () =>
      Effect.gen(function*() {
        const foreign = yield* mcpPost(rpcRequest(1, "initialize", initializeParams()), { origin: "https://elsewhere.example" })
        expect(foreign.status).toBe(200)
        expect(foreign.headers["access-control-expose-headers"]).toContain("mcp-session-id")
        const preflight = yield* Effect.scoped(Effect.gen(function*() {
          const response = yield* (yield* HttpClient.HttpClient).execute(
            HttpClientRequest.make("OPTIONS")("/mcp").pipe(HttpClientRequest.setHeaders({
              origin: "https://elsewhere.example",
              "access-control-request-method": "POST",
              "access-control-request-headers": "content-type, mcp-session-id, mcp-protocol-version"
            }))
          )
          return response.headers
        }))
        expect(preflight["access-control-allow-headers"]).toContain("mcp-session-id")
        expect(preflight["access-control-allow-headers"]).toContain("mcp-protocol-version")
        expect(preflight["access-control-allow-methods"]).toContain("DELETE")
      }).pipe(Effect.provide(standalone({ cors: "*" }, { tools: [echo] }))))
  })

  describe("stopping", () => {
    /** Whether a fresh TCP connection to `port` is refused: the listener is closed. */
    const refuses = (port: number) =>
      Effect.async<boolean>((resume) => {
        const socket = connect({ host: "127.0.0.1", port })
        socket.once("connect", () => {
          socket.destroy()
          resume(Effect.succeed(false))
        })
        socket.once("error", () => resume(Effect.succeed(true)))
      })

    it.live("a graceful stop lets a running tool call finish and answers it", () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const slow = Tool.make({
          name: "slow",
          description: "Waits to be released.",
          handler: () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.as(Deferred.await(release), "finished"))
        })
        const scope = yield* Scope.make()
        // The server lives in its own scope; the client (from the test's context) outlives it.
        const { url } = yield* serveStandalone({ sessions: false }).pipe(
          Effect.provide(toolsLayer({ tools: [slow] })),
          Scope.extend(scope)
        )
        const client = yield* HttpClient.HttpClient
        const call = yield* Effect.scoped(Effect.gen(function*() {
          const response = yield* client.execute(
            HttpClientRequest.post(url).pipe(
              HttpClientRequest.setHeaders({ accept: "application/json" }),
              HttpClientRequest.bodyUnsafeJson(rpcRequest(1, "tools/call", callParams("slow")))
            )
          )
          return { status: response.status, body: yield* response.json }
        })).pipe(Effect.fork)
        yield* Deferred.await(started)
        const stopping = yield* Effect.fork(Scope.close(scope, Exit.void))
        // Bounded polling of real state: the listener stops accepting while the call still runs.
        const port = Number(new URL(url).port)
        yield* refuses(port).pipe(Effect.repeat({ until: (refused) => refused, schedule: Schedule.spaced("10 millis"), times: 50 }))
        expect(yield* refuses(port)).toBe(true)
        yield* Deferred.succeed(release, undefined)
        const answered = yield* Fiber.join(call)
        expect(answered.status).toBe(200)
        expect(field(answered.body, "result", "content", 0, "text")).toBe("finished")
        yield* Fiber.join(stopping)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
  })
})

describe("easyai serve's mounted /mcp", () => {
  const model = ScriptedChatModel.layer([])

  it.live("answers initialize and tools/call next to the chat API", () =>
    Effect.gen(function*() {
      const { initialized, sessionHeaders, acknowledged } = yield* openSession()
      expect(field(resultOf(initialized, 0), "serverInfo", "name")).toBe("easyai")
      expect(initialized.headers["mcp-session-id"]).toMatch(uuid)
      expect(acknowledged.status).toBe(202)
      const list = resultOf(yield* mcpPost(rpcRequest(1, "tools/list"), sessionHeaders), 1)
      expect(field(list, "tools", 0, "name")).toBe("echo")
      const called = resultOf(yield* mcpPost(rpcRequest(2, "tools/call", callParams("echo", { text: "through serve" })), sessionHeaders), 2)
      expect(called).toEqual({ content: [{ type: "text", text: "through serve" }], isError: false })
      expect((yield* mcpPost(rpcRequest(3, "ping"))).status).toBe(400)
      expect((yield* mcpSend("GET")).status).toBe(405)
      // The chat API is still there beside it.
      expect((yield* mcpSend("GET", {}, "/v1/models")).status).toBe(200)
    }).pipe(Effect.provide(served({ model, session: { withDefaultTools: false, tools: [echo] } }))))

  it.live("with an API key, /mcp needs it", () =>
    Effect.gen(function*() {
      expect((yield* mcpPost(rpcRequest(1, "initialize", initializeParams()))).status).toBe(401)
      expect((yield* mcpPost(rpcRequest(1, "initialize", initializeParams()), { authorization: "Bearer nope" })).status).toBe(401)
      const { initialized, sessionHeaders } = yield* openSession({ authorization: "Bearer k" })
      expect(initialized.status).toBe(200)
      const called = resultOf(yield* mcpPost(rpcRequest(2, "tools/call", callParams("echo", { text: "keyed" })), sessionHeaders), 2)
      expect(field(called, "content", 0, "text")).toBe("keyed")
      expect((yield* mcpSend("GET", {}, "/health")).status).toBe(200)
    }).pipe(Effect.provide(served({ model, session: { withDefaultTools: false, tools: [echo] }, server: { apiKey: Redacted.make("k") } }))))
})
