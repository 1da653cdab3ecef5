/**
 * `/rpc` runs the server's agent and its tools for a caller, so it gets
 * every guard the chat gets: the API key, the foreign-page refusal, the
 * `Host` check. Each attack is replayed over a real loopback socket
 * against a server whose agent has bash.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { conversationModel } from "../support/conversationModel.js"
import { jsonOf, send } from "../support/rawHttp.js"
import { baseUrl, served } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

const key = "agent-rpc-key"
/** A request that opens a session, as the protocol's ndjson body. */
const attack = `${JSON.stringify({ _tag: "Request", id: "1", tag: "Open", payload: {}, headers: [] })}\n`

const port = Effect.map(baseUrl, (url) => Number(new URL(url).port))

describe("/rpc is guarded like the chat", () => {
  it.live("without the key, from a foreign page, or under a foreign Host name, no session is opened", () =>
    Effect.gen(function*() {
      const at = yield* port
      const json = { "content-type": "application/x-ndjson" }
      const noKey = yield* send({ port: at, method: "POST", path: "/rpc", headers: json, body: attack })
      expect(noKey.status).toBe(401)
      const foreignPage = yield* send({
        port: at,
        method: "POST",
        path: "/rpc",
        headers: { ...json, authorization: `Bearer ${key}`, origin: "https://evil.example", "content-type": "text/plain" },
        body: attack
      })
      expect(foreignPage.status).toBe(403)
      expect(jsonOf(foreignPage)).toMatchObject({ error: { code: "origin_not_allowed" } })
      const rebound = yield* send({
        port: at,
        method: "POST",
        path: "/rpc",
        headers: { ...json, authorization: `Bearer ${key}`, host: `evil.example:${at}` },
        body: attack
      })
      expect(rebound.status).toBe(421)
      // With the key, from no page, under its own name, the same body opens a session.
      const allowed = yield* send({ port: at, method: "POST", path: "/rpc", headers: { ...json, authorization: `Bearer ${key}` }, body: attack })
      expect(allowed.status).toBe(200)
      expect(allowed.text).toContain("\"_tag\":\"Success\"")
    }).pipe(Effect.provide(served({
      model: conversationModel,
      host: { root: tempDir(), bash: true },
      server: { apiKey: Redacted.make(key) }
    }))), 30_000)
})
