import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Metric, MetricState, Redacted, Stream } from "effect"
import { ChatModel, Finished, type ServerLive, TextDelta, Usage } from "easyai"
import { presets } from "../../../src/domain/Sampling.js"
import { ScriptedChatModel } from "easyai/testing"
import { request as httpRequest } from "node:http"
import packageJson from "../../../package.json" with { type: "json" }
import { baseUrl, chat, field, json, type Reply, send, served } from "../../support/server.js"
import { echo } from "../../support/tools.js"
import * as WebUi from "../../../src/apps/server/webui.js"

const user = (content: string) => ({ role: "user", content })

/** A server on a scripted model, with `echo` as its only server-side tool; the recorder stays readable. */
const scripted = (turns: ReadonlyArray<ScriptedChatModel.Turn>, options: Partial<ServerLive.Options<never>> = {}) => {
  const model = ScriptedChatModel.layer(turns)
  return Layer.merge(served({ model, session: { withDefaultTools: false, tools: [echo] }, ...options }), model)
}

/** A model that knows its context size, as a local engine does. */
const sized = Layer.succeed(ChatModel, {
  info: Effect.succeed({ name: "tiny-q4", backend: "llama", contextSize: 4096 }),
  stream: () => Stream.make(new TextDelta({ text: "ok" }), new Finished({ reason: "stop" }))
})

const requests = Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)

/** The OpenAI error envelope of a reply, checked for its shape. */
const errorOf = (reply: Reply) => {
  expect(reply.headers["content-type"]).toContain("application/json")
  const error = field(json(reply), "error")
  expect(error).toMatchObject({ message: expect.any(String), type: expect.any(String) })
  expect(error).toHaveProperty("code")
  expect(error).toHaveProperty("param")
  return error
}

/** The value of one sample of a Prometheus text exposition. */
const sample = (text: string, name: string): number => {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `))
  expect(line, `${name} in /metrics`).toBeDefined()
  return Number(line?.slice(name.length + 1))
}

const metrics = Effect.map(send("GET", "/metrics"), (reply) => reply.text)

/**
 * A request whose path goes on the wire exactly as written (a URL-based
 * client would normalize `..` segments away), as a hostile client sends it.
 */
const raw = (method: string, path: string, headers: Readonly<Record<string, string>> = {}, body?: string) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.async<Reply, Error>((resume) => {
      const target = new URL(base)
      const outgoing = httpRequest({ host: target.hostname, port: target.port, method, path, headers }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("error", (error) => resume(Effect.fail(error)))
        response.on("end", () => {
          const flat: Record<string, string> = {}
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value
          }
          resume(Effect.succeed({ status: response.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString("utf8") }))
        })
      })
      outgoing.on("error", (error) => resume(Effect.fail(error)))
      outgoing.end(body)
      return Effect.sync(() => outgoing.destroy())
    }))

describe("management endpoints", () => {
  describe("GET /v1/models", () => {
    it.live("lists the alias as the one model when the server has one", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/v1/models")
        expect(reply.status).toBe(200)
        const body = json(reply)
        expect(field(body, "object")).toBe("list")
        expect(field(body, "data")).toHaveLength(1)
        expect(field(body, "data", 0)).toMatchObject({ id: "my-alias", object: "model", owned_by: "easyai" })
        expect(field(body, "data", 0, "created")).toEqual(expect.any(Number))
        expect(field(body, "data", 0, "meta", "backend")).toBe("scripted")
      }).pipe(Effect.provide(scripted([], { server: { modelAlias: "my-alias" } }))))

    it.live("lists the model's own name without an alias", () =>
      Effect.gen(function*() {
        const body = json(yield* send("GET", "/v1/models"))
        expect(field(body, "object")).toBe("list")
        expect(field(body, "data", 0, "id")).toBe("scripted")
      }).pipe(Effect.provide(scripted([]))))

    it.live("reports the context size of a model that knows it", () =>
      Effect.gen(function*() {
        const body = json(yield* send("GET", "/v1/models"))
        expect(field(body, "data", 0, "id")).toBe("tiny-q4")
        expect(field(body, "data", 0, "meta")).toEqual({ backend: "llama", n_ctx: 4096 })
      }).pipe(Effect.provide(served({ model: sized, session: { withDefaultTools: false, tools: [echo] } }))))
  })

  it.live("GET /v1/tools lists the server-side tools as OpenAI function tools, full descriptions and schemas", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/v1/tools")
      expect(reply.status).toBe(200)
      const body = json(reply)
      expect(field(body, "object")).toBe("list")
      expect(field(body, "data")).toEqual([{
        type: "function",
        function: {
          name: "echo",
          description: "Echo the text back.\nRequired: text.",
          parameters: echo.spec.parameters
        }
      }])
      expect(field(body, "data", 0, "function", "parameters")).toMatchObject({
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"]
      })
    }).pipe(Effect.provide(scripted([]))))

  describe("GET /health", () => {
    it.live("reports ok, the slots and the compat block", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/health")
        expect(reply.status).toBe(200)
        // JSON, with its length given up front (not chunked).
        expect(reply.headers["content-type"]).toBe("application/json")
        expect(Number(reply.headers["content-length"])).toBe(Buffer.byteLength(reply.text))
        expect(reply.headers["transfer-encoding"]).toBeUndefined()
        const body = json(reply)
        expect(field(body, "status")).toBe("ok")
        expect(field(body, "model")).toBe("scripted")
        expect(field(body, "backend")).toBe("scripted")
        expect(field(body, "n_ctx")).toBeUndefined()
        expect(field(body, "slots")).toEqual({ total: 2, active: 0, queued: 0, queue_limit: 3 })
        expect(field(body, "compat", "openai")).toContain("/v1/chat/completions")
        expect(field(body, "compat", "openai")).toContain("/v1/models")
        expect(field(body, "compat", "ollama")).toContain("/api/tags")
        expect(field(body, "compat", "ollama")).toContain("/api/show")
        expect(field(body, "compat", "easyai")).toContain("/health")
      }).pipe(Effect.provide(scripted([], { server: { parallel: 2, queueLimit: 3 } }))))

    it.live("answers the same on the socket's fast path as through the app, and counts both", () =>
      Effect.gen(function*() {
        // Without `Origin`, the listener answers the probe itself; a same-origin page's request goes through the app.
        const fast = yield* send("GET", "/health")
        const origin = new URL(yield* baseUrl).origin
        const routed = yield* send("GET", "/health", { headers: { origin } })
        expect(routed.status).toBe(200)
        expect(fast.text).toBe(routed.text)
        expect(fast.headers["content-type"]).toBe(routed.headers["content-type"])
        expect(fast.headers["content-length"]).toBe(routed.headers["content-length"])
        // A query string is not the probe's exact path: the app answers it, the same way.
        expect((yield* send("GET", "/health?verbose=1")).text).toBe(fast.text)
        expect(sample(yield* metrics, "easyai_requests_total")).toBe(3)
      }).pipe(Effect.provide(scripted([]))))

    it.live("defaults to one slot and a queue of 16, and shows n_ctx when the model knows it", () =>
      Effect.gen(function*() {
        const body = json(yield* send("GET", "/health"))
        expect(field(body, "slots")).toEqual({ total: 1, active: 0, queued: 0, queue_limit: 16 })
        expect(field(body, "n_ctx")).toBe(4096)
      }).pipe(Effect.provide(served({ model: sized, session: { withDefaultTools: false, tools: [echo] } }))))
  })

  describe("GET /props", () => {
    it.live("reports the configuration: preset, context, tools, auth, limits, build", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/props")
        expect(reply.status).toBe(200)
        const body = json(reply)
        expect(field(body, "model")).toBe("scripted")
        expect(field(body, "model_path")).toBeNull()
        expect(field(body, "n_ctx")).toBeNull()
        expect(field(body, "parallel")).toBe(1)
        expect(field(body, "queue_limit")).toBe(16)
        expect(field(body, "preset")).toBe("precise")
        expect(field(body, "default_generation_settings")).toEqual({ temperature: 0.2, top_p: 1, top_k: 50, min_p: 0.1 })
        expect(field(body, "inject_preamble")).toBe(true)
        expect(field(body, "tools")).toEqual(["echo"])
        expect(field(body, "auth")).toBe(false)
        expect(field(body, "cors")).toEqual([])
        expect(field(body, "limits")).toEqual({ max_body_bytes: 8 * 1024 * 1024, max_json_depth: 256 })
        expect(field(body, "build")).toEqual({ name: "easyai", version: packageJson.version })
      }).pipe(Effect.provide(scripted([]))))

    it.live("follows the server's options and the live preset switch", () =>
      Effect.gen(function*() {
        const body = json(yield* send("GET", "/props"))
        expect(field(body, "model")).toBe("tiny-q4")
        expect(field(body, "n_ctx")).toBe(4096)
        expect(field(body, "preset")).toBe("creative")
        const creative = presets.creative
        expect(field(body, "default_generation_settings")).toEqual({
          temperature: creative.temperature,
          top_p: creative.topP,
          top_k: creative.topK,
          min_p: creative.minP
        })
        expect(field(body, "limits")).toEqual({ max_body_bytes: 1024, max_json_depth: 32 })
        expect(field(body, "parallel")).toBe(3)
        expect(field(body, "cors")).toBe("localhost")

        expect((yield* send("POST", "/v1/preset", { json: { preset: "wild" } })).status).toBe(200)
        const after = json(yield* send("GET", "/props"))
        expect(field(after, "preset")).toBe("wild")
        expect(field(after, "default_generation_settings", "temperature")).toBe(presets.wild.temperature)
      }).pipe(Effect.provide(served({
        model: sized,
        session: { withDefaultTools: false, tools: [echo] },
        server: { preset: "creative", limits: { maxBytes: 1024, maxDepth: 32 }, parallel: 3, cors: "localhost" }
      }))))
  })

  describe("GET /metrics", () => {
    it.live("is Prometheus text, and counts every request answered before it", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/metrics")
        expect(reply.status).toBe(200)
        expect(reply.headers["content-type"]).toContain("text/plain")
        expect(reply.text).toContain("# TYPE easyai_requests_total counter\n")
        expect(reply.text).toContain("# TYPE easyai_requests_active gauge\n")
        expect(reply.text).toContain("# HELP easyai_errors_total ")
        // A scrape is counted once it is answered: the first one sees nothing.
        expect(sample(reply.text, "easyai_requests_total")).toBe(0)
        expect(sample(reply.text, "easyai_requests_active")).toBe(0)
        expect(sample(reply.text, "easyai_requests_queued")).toBe(0)

        yield* send("GET", "/v1/models")
        yield* send("GET", "/health")
        const later = yield* metrics
        // The first scrape, /v1/models, /health.
        expect(sample(later, "easyai_requests_total")).toBe(3)
        expect(sample(later, "easyai_errors_total")).toBe(0)
      }).pipe(Effect.provide(scripted([]))))

    it.live("reads its counters from Effect's metric registry, the one --otlp exports", () =>
      Effect.gen(function*() {
        yield* send("GET", "/v1/models")
        yield* send("GET", "/nope")
        const scraped = sample(yield* metrics, "easyai_requests_total")
        // This server's series on the registry: tagged with its own id, so other servers in the process count apart.
        const registered = (yield* Metric.snapshot).filter((pair) => pair.metricKey.name === "easyai.server.requests")
        // The scrape itself is counted once answered: the registry is one ahead of what it showed.
        const mine = registered.filter((pair) =>
          MetricState.isCounterState(pair.metricState) && Number(pair.metricState.count) === scraped + 1
        )
        expect(scraped).toBe(2)
        expect(mine.length).toBeGreaterThanOrEqual(1)
        expect(mine[0]?.metricKey.tags.some((tag) => tag.key === "easyai.server")).toBe(true)
      }).pipe(Effect.provide(scripted([]))))

    it.live("counts a 400 and a 404 as errors", () =>
      Effect.gen(function*() {
        const bad = yield* chat({ messages: [] })
        expect(bad.status).toBe(400)
        expect(sample(yield* metrics, "easyai_errors_total")).toBe(1)
        expect((yield* send("GET", "/nowhere")).status).toBe(404)
        const text = yield* metrics
        expect(sample(text, "easyai_errors_total")).toBe(2)
        // The bad chat, the first scrape, the 404.
        expect(sample(text, "easyai_requests_total")).toBe(3)
      }).pipe(Effect.provide(scripted([]))))

    it.live("has llama-server's series: tokens per second, KV-cache use, requests processing and deferred", () =>
      Effect.gen(function*() {
        const before = yield* metrics
        for (const name of ["prompt_tokens_seconds", "predicted_tokens_seconds", "kv_cache_usage_ratio", "requests_processing", "requests_deferred"]) {
          expect(before).toContain(`# TYPE llamacpp:${name} gauge\n`)
        }
        expect(sample(before, "llamacpp:requests_processing")).toBe(0)
        expect(sample(before, "llamacpp:requests_deferred")).toBe(0)
        expect((yield* chat({ messages: [user("a")] })).status).toBe(200)
        const after = yield* metrics
        expect(sample(after, "llamacpp:prompt_tokens_seconds")).toBe(500)
        expect(sample(after, "llamacpp:predicted_tokens_seconds")).toBe(40)
        expect(sample(after, "llamacpp:kv_cache_usage_ratio")).toBe(0.25)
        expect(sample(after, "llamacpp:prompt_tokens_total")).toBe(12)
        expect(sample(after, "llamacpp:tokens_predicted_total")).toBe(3)
      }).pipe(Effect.provide(scripted([[
        ...ScriptedChatModel.text("ok"),
        new Usage({ promptTokens: 12, completionTokens: 3, contextUsed: 1024, contextSize: 4096, tokensPerSecond: 40, promptTokensPerSecond: 500 })
      ]]))))

    it.live("counts a server-side tool call", () =>
      Effect.gen(function*() {
        expect(sample(yield* metrics, "easyai_tool_calls_total")).toBe(0)
        const reply = yield* chat({ messages: [user("echo ping")] })
        expect(reply.status).toBe(200)
        expect(sample(yield* metrics, "easyai_tool_calls_total")).toBe(1)
      }).pipe(Effect.provide(scripted([ScriptedChatModel.toolCall("echo", { text: "ping" }), ScriptedChatModel.reply("ping")]))))

    it.live("does not count a tool call the client runs itself", () =>
      Effect.gen(function*() {
        const reply = yield* chat({ messages: [user("echo ping")], tools: [{ type: "function", function: { name: "echo" } }] })
        expect(field(json(reply), "choices", 0, "finish_reason")).toBe("tool_calls")
        expect(sample(yield* metrics, "easyai_tool_calls_total")).toBe(0)
      }).pipe(Effect.provide(scripted([ScriptedChatModel.toolCall("echo", { text: "ping" })]))))

    it.live("adds the usage of whole and streamed completions to the token counters", () =>
      Effect.gen(function*() {
        yield* chat({ messages: [user("a")] })
        const first = yield* metrics
        expect(sample(first, "easyai_prompt_tokens_total")).toBe(7)
        expect(sample(first, "easyai_completion_tokens_total")).toBe(3)
        const streamed = yield* chat({ messages: [user("b")], stream: true })
        expect(streamed.status).toBe(200)
        const second = yield* metrics
        expect(sample(second, "easyai_prompt_tokens_total")).toBe(12)
        expect(sample(second, "easyai_completion_tokens_total")).toBe(7)
      }).pipe(Effect.provide(scripted([
        [...ScriptedChatModel.reply("one"), ScriptedChatModel.usage(7, 3)],
        [...ScriptedChatModel.reply("two"), ScriptedChatModel.usage(5, 4)]
      ]))))
  })

  describe("the Ollama endpoints", () => {
    it.live("GET /api/tags lists the served model", () =>
      Effect.gen(function*() {
        const reply = yield* send("GET", "/api/tags")
        expect(reply.status).toBe(200)
        const models = field(json(reply), "models")
        expect(models).toHaveLength(1)
        expect(field(models, 0)).toMatchObject({
          name: "my-alias",
          model: "my-alias",
          details: { format: "gguf", family: "scripted", families: ["scripted"] }
        })
        expect(Number.isNaN(Date.parse(String(field(models, 0, "modified_at"))))).toBe(false)
      }).pipe(Effect.provide(scripted([], { server: { modelAlias: "my-alias" } }))))

    it.live("POST /api/show describes a served name: the alias, the model's own name or easyai", () =>
      Effect.gen(function*() {
        for (const name of ["my-alias", "tiny-q4", "easyai"]) {
          const reply = yield* send("POST", "/api/show", { json: { model: name } })
          expect(reply.status, name).toBe(200)
          const body = json(reply)
          expect(field(body, "details")).toMatchObject({ format: "gguf", family: "llama" })
          expect(field(body, "model_info")).toEqual({ "general.name": "my-alias", "general.context_length": 4096 })
          expect(field(body, "capabilities")).toEqual(["completion", "tools"])
        }
        // Older clients send `name`.
        expect((yield* send("POST", "/api/show", { json: { name: "my-alias" } })).status).toBe(200)
      }).pipe(Effect.provide(served({
        model: sized,
        session: { withDefaultTools: false, tools: [echo] },
        server: { modelAlias: "my-alias" }
      }))))

    it.live("POST /api/show describes the one served model under any name, and answers 400 in Ollama's shape without one", () =>
      Effect.gen(function*() {
        const other = yield* send("POST", "/api/show", { json: { model: "llama3.2:latest" } })
        expect(other.status).toBe(200)
        expect(field(json(other), "details")).toMatchObject({ format: "gguf" })
        const missing = yield* send("POST", "/api/show", { json: {} })
        expect(missing.status).toBe(400)
        expect(json(missing)).toEqual({ error: "model is required" })
      }).pipe(Effect.provide(scripted([]))))
  })

  it.live("GET / is the web UI: one page, its config filled in, under a CSP that keeps it to this server", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/")
      expect(reply.status).toBe(200)
      expect(reply.headers["content-type"]).toContain("text/html")
      expect(reply.headers["content-security-policy"]).toBe(WebUi.contentSecurityPolicy)
      expect(reply.headers["content-security-policy"]).toContain("connect-src 'self'")
      expect(reply.text).toContain("<title>easyai</title>")
      expect(reply.text).toContain(`<script id="easyai-config" type="application/json">{"title":"easyai","placeholder":"Message easyai…"}</script>`)
      // Self-contained: nothing is loaded from anywhere else.
      expect(reply.text).not.toMatch(/<script[^>]+src=|<link[^>]+href="(?!data:)/)
    }).pipe(Effect.provide(scripted([]))))

  it.live("an unknown route is a 404 in OpenAI's error envelope, naming the method and path", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/v1/nope?x=1")
      expect(reply.status).toBe(404)
      expect(errorOf(reply)).toEqual({ message: "no route for GET /v1/nope", type: "not_found_error", code: "not_found", param: null })
      const wrongMethod = yield* send("DELETE", "/health")
      expect(wrongMethod.status).toBe(404)
      expect(field(errorOf(wrongMethod), "message")).toBe("no route for DELETE /health")
    }).pipe(Effect.provide(scripted([]))))
})

describe("the API key", () => {
  const keyed = (turns: ReadonlyArray<ScriptedChatModel.Turn> = []) => scripted(turns, { server: { apiKey: Redacted.make("sekret") } })
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

  it.live("is required on /v1/models: none or a wrong one is a 401 authentication_error, the right one is a 200", () =>
    Effect.gen(function*() {
      const none = yield* send("GET", "/v1/models")
      expect(none.status).toBe(401)
      expect(errorOf(none)).toMatchObject({ type: "authentication_error", code: "invalid_api_key" })
      expect(String(field(errorOf(none), "message"))).toContain("Authorization: Bearer")

      const wrong = yield* send("GET", "/v1/models", { headers: bearer("sekret2") })
      expect(wrong.status).toBe(401)
      expect(field(errorOf(wrong), "type")).toBe("authentication_error")
      expect((yield* send("GET", "/v1/models", { headers: { authorization: "sekret" } })).status).toBe(401)
      expect((yield* send("GET", "/v1/models", { headers: bearer("") })).status).toBe(401)

      const right = yield* send("GET", "/v1/models", { headers: bearer("sekret") })
      expect(right.status).toBe(200)
      expect(field(json(right), "data", 0, "id")).toBe("scripted")
      // The scheme is case-insensitive, as RFC 7235 says.
      expect((yield* send("GET", "/v1/models", { headers: { authorization: "bearer sekret" } })).status).toBe(200)
    }).pipe(Effect.provide(keyed())))

  it.live("leaves /health, /metrics and / open", () =>
    Effect.gen(function*() {
      for (const path of ["/health", "/metrics", "/"]) {
        expect((yield* send("GET", path)).status, path).toBe(200)
      }
    }).pipe(Effect.provide(keyed())))

  it.live("guards /props, /v1/tools and the Ollama endpoints too", () =>
    Effect.gen(function*() {
      expect((yield* send("GET", "/props")).status).toBe(401)
      expect((yield* send("GET", "/v1/tools")).status).toBe(401)
      expect((yield* send("GET", "/api/tags")).status).toBe(401)
      const props = yield* send("GET", "/props", { headers: bearer("sekret") })
      expect(props.status).toBe(200)
      expect(field(json(props), "auth")).toBe(true)
    }).pipe(Effect.provide(keyed())))

  it.live("keeps a keyless chat request away from the model", () =>
    Effect.gen(function*() {
      const refused = yield* chat({ messages: [user("hi")] })
      expect(refused.status).toBe(401)
      expect(yield* requests).toHaveLength(0)
      const accepted = yield* chat({ messages: [user("hi")] }, bearer("sekret"))
      expect(accepted.status).toBe(200)
      expect(yield* requests).toHaveLength(1)
    }).pipe(Effect.provide(keyed([ScriptedChatModel.reply("hello")]))))

  it.live("is checked on the path as sent, even when it does not name a route", () =>
    Effect.gen(function*() {
      // The helper sends paths verbatim; an ordinary protected path is refused through it.
      expect((yield* raw("GET", "/props")).status).toBe(401)
      expect((yield* raw("GET", "/props", bearer("sekret"))).status).toBe(200)
      expect((yield* raw("GET", "/health")).status).toBe(200)
    }).pipe(Effect.provide(keyed())))

  // The router cuts paths at `;` and collapses duplicate slashes; the key is checked after
  // routing, so no spelling of a protected path slips through as an open one.
  it.live("GET /props;/../health does not reach /props without a key", () =>
    Effect.gen(function*() {
      const reply = yield* raw("GET", "/props;/../health")
      // A 401 (or a 404) carries no configuration; the /props body does.
      expect(field(json(reply), "preset")).toBeUndefined()
    }).pipe(Effect.provide(keyed())))

  it.live("GET //props/ does not reach /props without a key", () =>
    Effect.gen(function*() {
      const reply = yield* raw("GET", "//props/")
      // A 401 (or a 404) carries no configuration; the /props body does.
      expect(field(json(reply), "preset")).toBeUndefined()
    }).pipe(Effect.provide(keyed())))

  it.live("POST /v1/chat/completions;/../../../health does not run the model without a key", () =>
    Effect.gen(function*() {
      yield* raw(
        "POST",
        "/v1/chat/completions;/../../../health",
        { "content-type": "application/json" },
        JSON.stringify({ messages: [user("hi")] })
      )
      expect(yield* requests).toHaveLength(0)
    }).pipe(Effect.provide(keyed([ScriptedChatModel.reply("hello")]))))
})

describe("CORS", () => {
  const allowOrigin = (reply: Reply) => reply.headers["access-control-allow-origin"]

  it.live("admits no other origin by default", () =>
    Effect.gen(function*() {
      for (const origin of ["https://anywhere.example", "http://localhost:5173"]) {
        const reply = yield* send("GET", "/v1/models", { headers: { origin } })
        expect(reply.status).toBe(200)
        expect(allowOrigin(reply), origin).toBeUndefined()
      }
    }).pipe(Effect.provide(scripted([]))))

  it.live("admits any origin when * is written out", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/v1/models", { headers: { origin: "https://anywhere.example" } })
      expect(reply.status).toBe(200)
      expect(allowOrigin(reply)).toBe("*")
      expect(reply.headers["access-control-expose-headers"]).toContain("retry-after")
    }).pipe(Effect.provide(scripted([], { server: { cors: "*" } }))))

  it.live("with localhost, admits localhost pages only", () =>
    Effect.gen(function*() {
      for (const origin of ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8000"]) {
        const local = yield* send("GET", "/v1/models", { headers: { origin } })
        expect(allowOrigin(local), origin).toBe(origin)
        expect(local.headers["vary"]).toContain("Origin")
      }
      for (const origin of ["https://evil.example", "http://localhost.evil.example", "null"]) {
        const foreign = yield* send("GET", "/v1/models", { headers: { origin } })
        expect(allowOrigin(foreign), origin).toBeUndefined()
      }
    }).pipe(Effect.provide(scripted([], { server: { cors: "localhost" } }))))

  it.live("with an explicit list, admits exactly those origins", () =>
    Effect.gen(function*() {
      const listed = yield* send("GET", "/health", { headers: { origin: "https://chat.example.com" } })
      expect(allowOrigin(listed)).toBe("https://chat.example.com")
      for (const origin of ["https://chat.example.com:8443", "http://chat.example.com", "http://localhost:5173", "https://evil.example"]) {
        expect(allowOrigin(yield* send("GET", "/health", { headers: { origin } })), origin).toBeUndefined()
      }
    }).pipe(Effect.provide(scripted([], { server: { cors: ["https://chat.example.com"] } }))))

  it.live("answers a preflight with 204, the methods and headers, before the key is checked", () =>
    Effect.gen(function*() {
      const reply = yield* send("OPTIONS", "/v1/chat/completions", {
        headers: {
          origin: "https://chat.example.com",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type"
        }
      })
      expect(reply.status).toBe(204)
      expect(reply.headers["access-control-allow-origin"]).toBe("https://chat.example.com")
      expect(reply.headers["access-control-allow-methods"]).toContain("POST")
      const allowed = String(reply.headers["access-control-allow-headers"]).split(",").map((name) => name.trim())
      expect(allowed).toContain("authorization")
      expect(allowed).toContain("content-type")
      expect(reply.headers["access-control-max-age"]).toBe("600")
    }).pipe(Effect.provide(scripted([], { server: { cors: ["https://chat.example.com"], apiKey: Redacted.make("sekret") } }))))

  it.live("puts the allow-origin header on error replies too, so a page can read them", () =>
    Effect.gen(function*() {
      const reply = yield* send("GET", "/v1/models", { headers: { origin: "http://localhost:5173" } })
      expect(reply.status).toBe(401)
      expect(allowOrigin(reply)).toBe("http://localhost:5173")
    }).pipe(Effect.provide(scripted([], { server: { cors: "localhost", apiKey: Redacted.make("sekret") } }))))

  // CORS alone only hides responses: a "simple" cross-site POST (text/plain, no preflight) would
  // still run the agent and its host tools. The server refuses it itself.
  it.live("by default, a cross-site simple POST is refused (403) and never reaches the model", () =>
    Effect.gen(function*() {
      const reply = yield* raw(
        "POST",
        "/v1/chat/completions",
        { origin: "https://evil.example", "content-type": "text/plain" },
        JSON.stringify({ messages: [user("run something")] })
      )
      expect(reply.status).toBe(403)
      expect(field(json(reply), "error", "code")).toBe("origin_not_allowed")
      expect(reply.headers["access-control-allow-origin"]).toBeUndefined()
      expect(yield* requests).toHaveLength(0)
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("done")]))))
})

describe("the web UI page", () => {
  const template = "<head><title><!--easyai-title--></title><!--easyai-config--></head>"

  it("fills in the title (HTML-escaped) and the config (no way out of its script tag)", () => {
    const page = WebUi.fillPage(template, { title: "Box <AI> & co", placeholder: "</script><script>alert(1)</script>" })
    expect(page).toContain("<title>Box &lt;AI&gt; &amp; co</title>")
    expect(page).not.toContain("</script><script>alert(1)")
    const config = /<script id="easyai-config" type="application\/json">(.*)<\/script>/.exec(page)?.[1] ?? ""
    expect(JSON.parse(config)).toEqual({ title: "Box <AI> & co", placeholder: "</script><script>alert(1)</script>" })
  })

  it("defaults the placeholder to the title", () => {
    const page = WebUi.fillPage(template, { title: "Box" })
    expect(page).toContain(`{"title":"Box","placeholder":"Message Box…"}`)
  })

  it("takes $ in a title literally", () => {
    expect(WebUi.fillPage(template, { title: "$& $1 cash" })).toContain("<title>$&amp; $1 cash</title>")
  })
})
