/**
 * Who may reach `easyai serve` and `easyai mcp`: a web page on another site
 * (CORS, cross-site POSTs), a page whose DNS name was rebound to this
 * machine (the `Host` check), and a key padded with Unicode spaces. Each
 * attack is replayed against the real programs over loopback sockets.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { bearerMatches } from "../../src/apps/server/security.js"
import { exchange, jsonOf, type RawReply, send, statusOf } from "../support/rawHttp.js"
import { startMcp, startServeSmall } from "../support/programProcess.js"

const evilPage = "https://evil.example"
const allowOrigin = (reply: RawReply) => reply.headers["access-control-allow-origin"]
const chatBody = JSON.stringify({
  messages: [{ role: "system", content: "Tell a story." }, { role: "user", content: "Once upon a time" }],
  max_tokens: 4
})
const mcpInit = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" } }
})
const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" }

describe("CORS: no cross-origin access unless the operator names the origin", () => {
  it.scopedLive("easyai serve, defaults: a foreign page reads nothing and cannot POST; the server's own page can", () =>
    Effect.gen(function*() {
      const { banner, port, url } = yield* startServeSmall("--no-tools")
      expect(banner.join("\n")).toContain("cors none")
      const read = yield* send({ port, path: "/v1/models", headers: { origin: evilPage } })
      expect(read.status).toBe(200)
      expect(allowOrigin(read)).toBeUndefined()
      // A "simple" cross-site POST needs no preflight: the server itself must refuse it.
      const post = yield* send({
        port,
        method: "POST",
        path: "/v1/chat/completions",
        headers: { origin: evilPage, "content-type": "text/plain" },
        body: chatBody
      })
      expect(post.status).toBe(403)
      expect(jsonOf(post)).toMatchObject({ error: { code: "origin_not_allowed" } })
      const localPage = yield* send({
        port,
        method: "POST",
        path: "/v1/chat/completions",
        headers: { origin: "http://localhost:5173", "content-type": "application/json" },
        body: chatBody
      })
      expect(localPage.status).toBe(403)
      const mcp = yield* send({ port, method: "POST", path: "/mcp", headers: { ...mcpHeaders, origin: evilPage }, body: mcpInit })
      expect(mcp.status).toBe(403)
      // The web UI is same-origin: its Origin names the host the request went to.
      const own = yield* send({
        port,
        method: "POST",
        path: "/v1/chat/completions",
        headers: { origin: url, "content-type": "application/json" },
        body: chatBody
      })
      expect(own.status, own.text).toBe(200)
    }), { timeout: 120_000 })

  it.scopedLive("easyai serve --cors https://a.example admits exactly that origin", () =>
    Effect.gen(function*() {
      const { banner, port } = yield* startServeSmall("--no-tools", "--cors", "https://a.example")
      expect(banner.join("\n")).toContain("cors https://a.example")
      const read = yield* send({ port, path: "/v1/models", headers: { origin: "https://a.example" } })
      expect(allowOrigin(read)).toBe("https://a.example")
      const post = yield* send({
        port,
        method: "POST",
        path: "/v1/chat/completions",
        headers: { origin: "https://a.example", "content-type": "text/plain" },
        body: chatBody
      })
      expect(post.status).toBe(200)
      expect(allowOrigin(post)).toBe("https://a.example")
      const other = yield* send({ port, method: "POST", path: "/v1/chat/completions", headers: { origin: evilPage }, body: chatBody })
      expect(other.status).toBe(403)
    }), { timeout: 120_000 })

  it.scopedLive("easyai mcp, defaults: a foreign page cannot open a session or read replies; --cors names one that can", () =>
    Effect.gen(function*() {
      const closed = yield* startMcp()
      expect(closed.banner[1]).toContain("cors none")
      const refused = yield* send({ port: closed.port, method: "POST", path: "/mcp", headers: { ...mcpHeaders, origin: evilPage }, body: mcpInit })
      expect(refused.status).toBe(403)
      expect(refused.headers["mcp-session-id"]).toBeUndefined()
      const health = yield* send({ port: closed.port, path: "/health", headers: { origin: evilPage } })
      expect(allowOrigin(health)).toBeUndefined()

      const open = yield* startMcp("--cors", "https://a.example")
      const admitted = yield* send({
        port: open.port,
        method: "POST",
        path: "/mcp",
        headers: { ...mcpHeaders, origin: "https://a.example" },
        body: mcpInit
      })
      expect(admitted.status).toBe(200)
      expect(allowOrigin(admitted)).toBe("https://a.example")
    }), { timeout: 120_000 })
})

describe("DNS rebinding: only the names a server is known by are answered, on every route", () => {
  const rebound = (port: number) => `evil.example:${port}`

  it.scopedLive("easyai serve refuses a foreign Host (421) on /, /health, /v1/models, /props, /metrics, /mcp and unknown paths", () =>
    Effect.gen(function*() {
      const { port } = yield* startServeSmall("--no-tools")
      const routes: ReadonlyArray<readonly [string, string]> = [
        ["GET", "/"],
        ["GET", "/health"],
        ["GET", "/v1/models"],
        ["GET", "/props"],
        ["GET", "/metrics"],
        ["POST", "/v1/chat/completions"],
        ["POST", "/mcp"],
        ["OPTIONS", "/v1/chat/completions"],
        ["GET", "/no/such/route"]
      ]
      for (const [method, path] of routes) {
        const reply = yield* send({
          port,
          method,
          path,
          headers: { host: rebound(port), "content-type": "application/json", accept: "application/json" },
          ...(method === "POST" ? { body: path === "/mcp" ? mcpInit : chatBody } : {})
        })
        expect(reply.status, `${method} ${path}`).toBe(421)
        expect(jsonOf(reply), `${method} ${path}`).toMatchObject({ error: { code: "host_not_allowed" } })
      }
      for (const host of ["127.0.0.1.evil.example", `localhost:${port + 1}`, "evil.example", `user@127.0.0.1:${port}`]) {
        expect((yield* send({ port, path: "/health", headers: { host } })).status, host).toBe(421)
      }
      // The names of this loopback listener, with or without the port.
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, "localhost", "127.0.0.1", `LOCALHOST:${port}`]) {
        expect((yield* send({ port, path: "/health", headers: { host } })).status, host).toBe(200)
      }
      // HTTP/1.0 lets a client leave Host out; no browser does, and the server does not guess.
      expect(statusOf(yield* exchange(port, "GET /health HTTP/1.0\r\n\r\n"))).toBe(421)
    }), { timeout: 120_000 })

  it.scopedLive("easyai serve --allowed-hosts evil.example admits that name", () =>
    Effect.gen(function*() {
      const { port } = yield* startServeSmall("--no-tools", "--allowed-hosts", "evil.example")
      expect((yield* send({ port, path: "/health", headers: { host: rebound(port) } })).status).toBe(200)
      expect((yield* send({ port, path: "/v1/models", headers: { host: "evil.example" } })).status).toBe(200)
      expect((yield* send({ port, path: "/health", headers: { host: "other.example" } })).status).toBe(421)
    }), { timeout: 120_000 })

  it.scopedLive("easyai mcp refuses a foreign Host on /mcp and /health; --allowed-hosts admits it", () =>
    Effect.gen(function*() {
      const closed = yield* startMcp()
      const call = yield* send({
        port: closed.port,
        method: "POST",
        path: "/mcp",
        headers: { ...mcpHeaders, host: rebound(closed.port) },
        body: mcpInit
      })
      expect(call.status).toBe(421)
      expect(call.headers["mcp-session-id"]).toBeUndefined()
      expect((yield* send({ port: closed.port, path: "/health", headers: { host: rebound(closed.port) } })).status).toBe(421)
      expect((yield* send({ port: closed.port, path: "/health", headers: { host: `localhost:${closed.port}` } })).status).toBe(200)

      const open = yield* startMcp("--allowed-hosts", "evil.example")
      const admitted = yield* send({
        port: open.port,
        method: "POST",
        path: "/mcp",
        headers: { ...mcpHeaders, host: rebound(open.port) },
        body: mcpInit
      })
      expect(admitted.status).toBe(200)
    }), { timeout: 120_000 })
})

describe("the API key: only ASCII spaces and tabs around it", () => {
  const unicodeSpaces = ["\u00a0", "\u2003", "\u3000", "\u2028", "\ufeff"]

  it("a key followed or preceded by a Unicode space does not match", () => {
    const key = Redacted.make("sekret")
    for (const space of unicodeSpaces) {
      expect(bearerMatches(`Bearer sekret${space}`, key), JSON.stringify(space)).toBe(false)
      expect(bearerMatches(`Bearer ${space}sekret`, key), JSON.stringify(space)).toBe(false)
    }
    expect(bearerMatches("Bearer sekret \t", key)).toBe(true)
    expect(bearerMatches(" \tbearer\tsekret", key)).toBe(true)
  })

  it.scopedLive("easyai serve --api-key refuses the key padded with Unicode spaces, sent as latin-1 or UTF-8 bytes", () =>
    Effect.gen(function*() {
      const { port } = yield* startServeSmall("--no-tools", "--api-key", "sekret")
      const withAuthorization = (value: Buffer) =>
        Buffer.concat([
          Buffer.from(`GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nAuthorization: `, "latin1"),
          value,
          Buffer.from("\r\n\r\n", "latin1")
        ])
      for (const space of unicodeSpaces) {
        for (const encoding of ["latin1", "utf8"] as const) {
          if (encoding === "latin1" && space.charCodeAt(0) > 0xff) continue
          const raw = yield* exchange(port, withAuthorization(Buffer.from(`Bearer sekret${space}`, encoding)))
          expect(statusOf(raw), `${JSON.stringify(space)} as ${encoding}`).toBe(401)
        }
      }
      expect(statusOf(yield* exchange(port, withAuthorization(Buffer.from("Bearer sekret \t", "latin1"))))).toBe(200)
    }), { timeout: 120_000 })
})
