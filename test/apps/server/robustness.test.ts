import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Option, Ref, Schedule, Stream } from "effect"
import {
  ChatModel,
  type ChatModelService,
  ContextOverflow,
  Finished,
  ModelError,
  type ServerLive,
  type ServerOptions,
  TextDelta
} from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import {
  chat,
  field,
  json,
  openStream,
  type Reply,
  type Send,
  send,
  served,
  sseFrames,
  streamedContent,
  withoutClock
} from "../../support/server.js"
import { echo } from "../../support/tools.js"

const user = (content: string) => ({ role: "user", content })

/** A server on a scripted model, with `echo` as its only server-side tool; the recorder stays readable. */
const scripted = (turns: ReadonlyArray<ScriptedChatModel.Turn>, options: Partial<ServerLive.Options<never>> = {}) => {
  const model = ScriptedChatModel.layer(turns)
  return Layer.merge(served({ model, session: { withDefaultTools: false, tools: [echo] }, ...options }), model)
}

const requests = Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)

/** The OpenAI error envelope of a reply, checked for its shape. */
const errorOf = (reply: Reply): unknown => {
  expect(reply.headers["content-type"]).toContain("application/json")
  const error = field(json(reply), "error")
  expect(error).toMatchObject({ message: expect.any(String), type: expect.any(String) })
  expect(String(field(error, "message"))).not.toBe("")
  expect(error).toHaveProperty("code")
  expect(error).toHaveProperty("param")
  return error
}

/** JSON text as an unknown value, for assertions. */
const parse = (text: string): unknown => JSON.parse(text)

/** `n` nested arrays, as JSON text. */
const nested = (n: number) => "[".repeat(n) + "]".repeat(n)

/** The good request every bad one is followed by: the server still answers, and the model sees only it. */
const stillServes = (answer: string) =>
  Effect.gen(function*() {
    const reply = yield* chat({ messages: [user("hi")] })
    expect(reply.status).toBe(200)
    expect(field(json(reply), "choices", 0, "message", "content")).toBe(answer)
    expect(yield* requests).toHaveLength(1)
  })

const healthSlots = Effect.map(send("GET", "/health"), (reply) => field(json(reply), "slots"))

/** Polls `/health` until `done` holds (bounded), then reads the slots once more for the assertion. */
const slotsOnce = (done: (slots: unknown) => boolean) =>
  healthSlots.pipe(
    Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: done, times: 250 }),
    Effect.zipRight(healthSlots)
  )

// A test model whose every generation emits "held ", then waits on a gate the test opens.

interface GateControl {
  /** Lets every held generation, and every later one, finish. */
  readonly release: Effect.Effect<void>
  /** Completes once a held generation was interrupted. */
  readonly interrupted: Effect.Effect<void>
  /** How many generations started. */
  readonly calls: Effect.Effect<number>
}

class Gate extends Context.Tag("test/Gate")<Gate, GateControl>() {}

const gateModel = Layer.effectContext(Effect.gen(function*() {
  const released = yield* Deferred.make<void>()
  const interrupted = yield* Deferred.make<void>()
  const calls = yield* Ref.make(0)
  const model: ChatModelService = {
    info: Effect.succeed({ name: "gate", backend: "test" }),
    stream: () =>
      Stream.concat(
        Stream.fromEffect(Effect.as(Ref.update(calls, (n) => n + 1), new TextDelta({ text: "held " }))),
        Stream.fromIterableEffect(Deferred.await(released).pipe(
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)),
          Effect.as([new TextDelta({ text: "released" }), new Finished({ reason: "stop" })])
        ))
      )
  }
  return Context.make(ChatModel, model).pipe(Context.add(Gate, {
    release: Effect.asVoid(Deferred.succeed(released, undefined)),
    interrupted: Deferred.await(interrupted),
    calls: Ref.get(calls)
  }))
}))

const gated = (server: ServerOptions) =>
  Layer.merge(served({ model: gateModel, session: { withDefaultTools: false, tools: [echo] }, server }), gateModel)

const readAll = (body: Stream.Stream<string, unknown>) => Stream.runFold(body, "", (all, text) => all + text)

describe("bad input is an OpenAI error envelope, and the server keeps serving", () => {
  interface BadCase {
    readonly name: string
    readonly send: Send
    readonly status: number
    readonly param: string | null
    readonly message: string
    readonly code?: string
  }

  const tool = (name: string, parameters?: unknown) => ({
    type: "function",
    function: { name, ...(parameters === undefined ? {} : { parameters }) }
  })

  const cases: ReadonlyArray<BadCase> = [
    { name: "malformed JSON", send: { body: "{\"messages\": [" }, status: 400, param: null, message: "not valid JSON" },
    { name: "an empty body", send: { body: "" }, status: 400, param: null, message: "empty" },
    { name: "a body that is an array", send: { json: [1, 2, 3] }, status: 400, param: null, message: "invalid request" },
    { name: "a body that is a string", send: { json: "hello" }, status: 400, param: null, message: "invalid request" },
    { name: "missing messages", send: { json: { model: "easyai" } }, status: 400, param: "messages", message: "messages: is missing" },
    { name: "messages as a string", send: { json: { messages: "hi" } }, status: 400, param: "messages", message: "invalid request: messages" },
    {
      name: "a string temperature",
      send: { json: { messages: [user("hi")], temperature: "hot" } },
      status: 400,
      param: "temperature",
      message: "temperature"
    },
    {
      name: "a temperature out of range",
      send: { json: { messages: [user("hi")], temperature: 9 } },
      status: 400,
      param: "temperature",
      message: "temperature"
    },
    {
      name: "a negative max_tokens",
      send: { json: { messages: [user("hi")], max_tokens: -1 } },
      status: 400,
      param: "max_tokens",
      message: "max_tokens"
    },
    {
      name: "a fractional max_tokens",
      send: { json: { messages: [user("hi")], max_tokens: 1.5 } },
      status: 400,
      param: "max_tokens",
      message: "max_tokens"
    },
    { name: "n other than 1", send: { json: { messages: [user("hi")], n: 2 } }, status: 400, param: "n", message: "n" },
    {
      name: "an unknown role",
      send: { json: { messages: [{ role: "robot", content: "hi" }] } },
      status: 400,
      param: "messages[0].role",
      message: "messages[0].role"
    },
    { name: "empty messages", send: { json: { messages: [] } }, status: 400, param: "messages", message: "messages must not be empty" },
    {
      name: "only system messages",
      send: { json: { messages: [{ role: "system", content: "Be brief." }, { role: "developer", content: "Be kind." }] } },
      status: 400,
      param: "messages",
      message: "only system messages"
    },
    {
      name: "a client tool with an invalid name",
      send: { json: { messages: [user("hi")], tools: [tool("bad name!")] } },
      status: 400,
      param: "tools[0].function.name",
      message: "not a valid function name"
    },
    {
      name: "a client tool whose parameters are not an object schema",
      send: { json: { messages: [user("hi")], tools: [tool("f", { type: "string" })] } },
      status: 400,
      param: "tools[0].function.parameters",
      message: "must describe an object"
    },
    {
      name: "a client tool whose properties are not an object",
      send: { json: { messages: [user("hi")], tools: [tool("f", { type: "object", properties: [] })] } },
      status: 400,
      param: "tools[0].function.parameters",
      message: "properties must be an object"
    },
    {
      name: "two client tools of one name",
      send: { json: { messages: [user("hi")], tools: [tool("f"), tool("f")] } },
      status: 400,
      param: "tools[1].function.name",
      message: "declared twice"
    },
    {
      name: "tool_choice naming an undeclared tool",
      send: { json: { messages: [user("hi")], tools: [tool("f")], tool_choice: { type: "function", function: { name: "g" } } } },
      status: 400,
      param: "tool_choice",
      message: "\"g\""
    },
    {
      name: "tool_choice naming a tool without any tools",
      send: { json: { messages: [user("hi")], tool_choice: { type: "function", function: { name: "echo" } } } },
      status: 400,
      param: "tool_choice",
      message: "\"echo\""
    },
    {
      name: "a tool message without tool_call_id",
      send: { json: { messages: [user("hi"), { role: "tool", content: "31 °C" }] } },
      status: 400,
      param: "messages[1].tool_call_id",
      message: "needs tool_call_id"
    },
    {
      name: "an image content part",
      send: {
        json: {
          messages: [{
            role: "user",
            content: [{ type: "text", text: "what is this?" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }]
          }]
        }
      },
      status: 400,
      param: "messages[0].content",
      message: "only text parts are supported (got \"image_url\")"
    }
  ]

  for (const bad of cases) {
    it.live(`${bad.name} → ${bad.status}`, () =>
      Effect.gen(function*() {
        const reply = yield* send("POST", "/v1/chat/completions", bad.send)
        expect(reply.status).toBe(bad.status)
        const error = errorOf(reply)
        expect(field(error, "type")).toBe(bad.status === 404 ? "not_found_error" : "invalid_request_error")
        expect(field(error, "param")).toBe(bad.param)
        expect(String(field(error, "message"))).toContain(bad.message)
        if (bad.code !== undefined) expect(field(error, "code")).toBe(bad.code)
        yield* stillServes("still here")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("still here")]))))
  }

  describe("the body size", () => {
    it.live("a body over a configured limit is a 413 (declared length)", () =>
      Effect.gen(function*() {
        const reply = yield* chat({ messages: [user("x".repeat(2048))] })
        expect(reply.status).toBe(413)
        expect(errorOf(reply)).toMatchObject({
          type: "invalid_request_error",
          code: "request_too_large",
          message: "the request body is larger than 1024 bytes"
        })
        yield* stillServes("still here")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("still here")], { server: { limits: { maxBytes: 1024 } } }))))

    /** Sends a body as chunks, without a Content-Length: the server counts the bytes as they arrive. */
    const chunked = (text: string) =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const bytes = new TextEncoder().encode(text)
        const request = HttpClientRequest.post("/v1/chat/completions").pipe(
          HttpClientRequest.bodyStream(Stream.make(bytes.slice(0, 700), bytes.slice(700, 1400), bytes.slice(1400)), {
            contentType: "application/json"
          })
        )
        const response = yield* client.execute(request)
        return { status: response.status, headers: response.headers, text: yield* response.text } satisfies Reply
      })
    const oversized = JSON.stringify({ messages: [user("x".repeat(2048))] })

    it.live("a chunked body (no declared length) over the limit never reaches the model; the server keeps serving", () =>
      Effect.gen(function*() {
        expect((yield* chunked(oversized)).status).toBe(413)
        expect(yield* requests).toHaveLength(0)
        yield* stillServes("still here")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("still here")], { server: { limits: { maxBytes: 1024 } } }))))

    it.live("a chunked body under the limit is read", () =>
      Effect.gen(function*() {
        const reply = yield* chunked(JSON.stringify({ messages: [user("y".repeat(500))] }))
        expect(reply.status).toBe(200)
        const last = (yield* requests)[0]?.messages.at(-1)
        expect(last?._tag === "UserMessage" ? withoutClock(last.content) : undefined).toBe("y".repeat(500))
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("ok")], { server: { limits: { maxBytes: 1024 } } }))))

    // The rest of an oversized chunked body is drained, so the 413 reaches a client still sending.
    it.live("a chunked body over the limit is answered with a 413 envelope", () =>
      Effect.gen(function*() {
        const reply = yield* chunked(oversized)
        expect(reply.status).toBe(413)
        expect(field(errorOf(reply), "code")).toBe("request_too_large")
      }).pipe(Effect.provide(scripted([], { server: { limits: { maxBytes: 1024 } } }))))

    it.live("a body under a configured limit is read", () =>
      Effect.gen(function*() {
        const reply = yield* chat({ messages: [user("x".repeat(900))] })
        expect(reply.status).toBe(200)
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("ok")], { server: { limits: { maxBytes: 1024 } } }))))

    it.live("a 9 MiB body is over the default 8 MiB limit: 413", () =>
      Effect.gen(function*() {
        const reply = yield* chat({ messages: [user("x".repeat(9 * 1024 * 1024))] })
        expect(reply.status).toBe(413)
        expect(errorOf(reply)).toMatchObject({ code: "request_too_large", message: `the request body is larger than ${8 * 1024 * 1024} bytes` })
        yield* stillServes("still here")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("still here")]))))
  })

  describe("the nesting depth", () => {
    it.live("a 100 000-deep array is refused with a 400 naming the 256-level limit", () =>
      Effect.gen(function*() {
        const reply = yield* send("POST", "/v1/chat/completions", { body: nested(100_000) })
        expect(reply.status).toBe(400)
        const error = errorOf(reply)
        expect(field(error, "message")).toBe("the request body nests deeper than 256 levels")
        expect(field(error, "type")).toBe("invalid_request_error")
        yield* stillServes("still here")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("still here")]))))

    it.live("256 levels are accepted, 257 are not (the body object is the first level)", () =>
      Effect.gen(function*() {
        const body = (depth: number) => `{"messages":[{"role":"user","content":"hi"}],"metadata":${nested(depth - 1)}}`
        const at = yield* send("POST", "/v1/chat/completions", { body: body(256) })
        expect(at.status).toBe(200)
        const over = yield* send("POST", "/v1/chat/completions", { body: body(257) })
        expect(over.status).toBe(400)
        expect(String(field(errorOf(over), "message"))).toContain("256")
        expect(yield* requests).toHaveLength(1)
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("ok")]))))

    it.live("a depth-200 value in a valid request is accepted where the server ignores it", () =>
      Effect.gen(function*() {
        const reply = yield* send("POST", "/v1/chat/completions", {
          body: `{"messages":[{"role":"user","content":"hi"}],"metadata":${nested(200)}}`
        })
        expect(reply.status).toBe(200)
        expect(field(json(reply), "choices", 0, "message", "content")).toBe("ok")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("ok")]))))

    it.live("a depth-200 value where the server reads is refused for its shape, not its depth", () =>
      Effect.gen(function*() {
        const reply = yield* send("POST", "/v1/chat/completions", {
          body: `{"messages":[{"role":"user","content":${nested(200)}}]}`
        })
        expect(reply.status).toBe(400)
        const error = errorOf(reply)
        expect(String(field(error, "message"))).not.toContain("nests deeper")
        expect(String(field(error, "param"))).toMatch(/^messages\[0\]\.content/)
        yield* stillServes("still here")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("still here")]))))

    it.live("brackets inside strings do not count, escaped quotes and trailing backslashes included", () =>
      Effect.gen(function*() {
        const content = `C:\\ and a "quote" then ${"[".repeat(300)}${"{".repeat(300)}\\`
        const reply = yield* chat({ messages: [user(content)] })
        expect(reply.status).toBe(200)
        const last = (yield* requests)[0]?.messages.at(-1)
        expect(last?._tag === "UserMessage" ? withoutClock(last.content) : undefined).toBe(content)
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("ok")]))))
  })
})

describe("model failures", () => {
  const boom = new ModelError({ reason: "Unavailable", detail: "boom" })

  it.live("a model that fails before any output is a 500 envelope; the next request is served", () =>
    Effect.gen(function*() {
      const failed = yield* chat({ messages: [user("hi")] })
      expect(failed.status).toBe(500)
      expect(errorOf(failed)).toEqual({ message: "the model failed: Unavailable: boom", type: "server_error", code: null, param: null })
      const streamed = yield* chat({ messages: [user("hi")], stream: true })
      expect(streamed.status).toBe(500)
      expect(field(errorOf(streamed), "type")).toBe("server_error")
      const next = yield* chat({ messages: [user("hi")] })
      expect(next.status).toBe(200)
      expect(field(json(next), "choices", 0, "message", "content")).toBe("recovered")
    }).pipe(Effect.provide(scripted([[ScriptedChatModel.fail(boom)], [ScriptedChatModel.fail(boom)], ScriptedChatModel.reply("recovered")]))))

  it.live("a rate-limited model is a 429", () =>
    Effect.gen(function*() {
      const reply = yield* chat({ messages: [user("hi")] })
      expect(reply.status).toBe(429)
      expect(field(errorOf(reply), "type")).toBe("rate_limit_error")
    }).pipe(Effect.provide(scripted([[ScriptedChatModel.fail(new ModelError({ reason: "RateLimited", detail: "slow down" }))]]))))

  it.live("a prompt over the context is a 400 context_length_exceeded with the token counts, streamed or not", () =>
    Effect.gen(function*() {
      for (const stream of [false, true]) {
        const reply = yield* chat({ messages: [user("a very long prompt")], stream })
        expect(reply.status, `stream ${stream}`).toBe(400)
        expect(errorOf(reply)).toMatchObject({
          type: "exceed_context_size_error",
          code: "context_length_exceeded",
          n_prompt_tokens: 5000,
          n_ctx: 4096
        })
        expect(String(field(errorOf(reply), "message"))).toBe(
          "the prompt needs 5000 tokens but the context holds 4096: send a shorter conversation (in easyai's chat: /compress), or start the server with a larger --ctx or with --no-tools"
        )
      }
    }).pipe(Effect.provide(scripted([
      [ScriptedChatModel.fail(new ContextOverflow({ promptTokens: 5000, contextSize: 4096 }))],
      [ScriptedChatModel.fail(new ContextOverflow({ promptTokens: 5000, contextSize: 4096 }))]
    ]))))

  const clientTool = { tools: [{ type: "function", function: { name: "f" } }] }
  const brokenTurns = [
    [...ScriptedChatModel.text("partial ", "answer"), ScriptedChatModel.fail(boom)],
    ScriptedChatModel.reply("recovered")
  ]

  for (const path of ["server tools", "client tools"] as const) {
    const tools = path === "client tools" ? clientTool : {}

    it.live(`a failure after the stream started keeps what was sent, frees the slot, and the server carries on (${path})`, () =>
      Effect.gen(function*() {
        const reply = yield* chat({ messages: [user("hi")], stream: true, ...tools })
        expect(reply.status).toBe(200)
        expect(streamedContent(sseFrames(reply.text))).toBe("partial answer")
        expect(yield* slotsOnce((slots) => field(slots, "active") === 0)).toMatchObject({ active: 0, queued: 0 })
        const next = yield* chat({ messages: [user("hi")], ...tools })
        expect(next.status).toBe(200)
        expect(field(json(next), "choices", 0, "message", "content")).toBe("recovered")
      }).pipe(Effect.provide(scripted(brokenTurns))))

    it.live(`a failure after the stream started ends it with an error chunk, then [DONE] (${path})`, () =>
      Effect.gen(function*() {
        const reply = yield* chat({ messages: [user("hi")], stream: true, ...tools })
        expect(reply.status).toBe(200)
        const frames = sseFrames(reply.text)
        expect(streamedContent(frames)).toBe("partial answer")
        expect(frames.at(-1)?.data).toBe("[DONE]")
        const failure = frames.at(-2)
        expect(failure?.event).toBeUndefined()
        expect(parse(failure?.data ?? "null")).toEqual({
          error: { message: "the model failed: Unavailable: boom", type: "server_error", code: null, param: null }
        })
        // The response was a 200, but the metrics count the broken stream as an error.
        expect((yield* send("GET", "/metrics")).text).toContain("\neasyai_errors_total 1\n")
      }).pipe(Effect.provide(scripted(brokenTurns))))
  }
})

describe("admission", () => {
  it.live("with every slot busy and no queue, a request is a 503 with retry-after; the slot comes back", () =>
    Effect.gen(function*() {
      const control = yield* Gate
      const held = yield* openStream({ messages: [user("first")] })
      expect(held.status).toBe(200)

      const busy = yield* chat({ messages: [user("second")] })
      expect(busy.status).toBe(503)
      expect(busy.headers["retry-after"]).toBe("1")
      expect(errorOf(busy)).toMatchObject({ type: "server_overloaded", code: "server_busy" })
      expect(yield* control.calls).toBe(1)
      expect(yield* healthSlots).toEqual({ total: 1, active: 1, queued: 0, queue_limit: 0 })

      yield* control.release
      const frames = sseFrames(yield* readAll(held.body))
      expect(streamedContent(frames)).toBe("held released")
      expect(frames.at(-1)?.data).toBe("[DONE]")

      expect(yield* slotsOnce((slots) => field(slots, "active") === 0)).toMatchObject({ active: 0, queued: 0 })
      const after = yield* chat({ messages: [user("third")] })
      expect(after.status).toBe(200)
      expect(field(json(after), "choices", 0, "message", "content")).toBe("held released")
      expect(yield* control.calls).toBe(2)
    }).pipe(Effect.provide(gated({ parallel: 1, queueLimit: 0 }))))

  it.live("with room in the queue, a request waits for the slot and completes after the first", () =>
    Effect.gen(function*() {
      const control = yield* Gate
      const held = yield* openStream({ messages: [user("first")] })
      expect(held.status).toBe(200)

      const waiting = yield* Effect.fork(chat({ messages: [user("second")] }))
      expect(yield* slotsOnce((slots) => field(slots, "queued") === 1)).toEqual({ total: 1, active: 1, queued: 1, queue_limit: 1 })
      const metrics = (yield* send("GET", "/metrics")).text
      expect(metrics).toContain("\neasyai_requests_queued 1\n")
      expect(metrics).toContain("\neasyai_requests_active 1\n")
      // The queued request has not reached the model, and a third finds the queue full.
      expect(yield* control.calls).toBe(1)
      expect((yield* chat({ messages: [user("third")] })).status).toBe(503)

      yield* control.release
      const second = yield* Fiber.join(waiting)
      expect(second.status).toBe(200)
      expect(field(json(second), "choices", 0, "message", "content")).toBe("held released")
      expect(streamedContent(sseFrames(yield* readAll(held.body)))).toBe("held released")
      expect(yield* control.calls).toBe(2)
      expect(yield* slotsOnce((slots) => field(slots, "active") === 0)).toMatchObject({ active: 0, queued: 0 })
    }).pipe(Effect.provide(gated({ parallel: 1, queueLimit: 1 }))))

  it.live("a queued client that goes away gives its place back and never reaches the model", () =>
    Effect.gen(function*() {
      const control = yield* Gate
      const held = yield* openStream({ messages: [user("first")] })
      expect(held.status).toBe(200)
      const waiting = yield* Effect.fork(chat({ messages: [user("second")] }))
      expect(field(yield* slotsOnce((slots) => field(slots, "queued") === 1), "queued")).toBe(1)

      yield* Fiber.interrupt(waiting)
      expect(yield* slotsOnce((slots) => field(slots, "queued") === 0)).toMatchObject({ active: 1, queued: 0 })

      yield* control.release
      yield* readAll(held.body)
      expect(field(yield* slotsOnce((slots) => field(slots, "active") === 0), "active")).toBe(0)
      expect((yield* chat({ messages: [user("third")] })).status).toBe(200)
      expect(yield* control.calls).toBe(2)
    }).pipe(Effect.provide(gated({ parallel: 1, queueLimit: 1 }))))
})

describe("a client that disconnects mid-stream", () => {
  for (const path of ["server tools", "client tools"] as const) {
    it.live(`interrupts the generation and frees its slot (${path})`, () =>
      Effect.gen(function*() {
        const control = yield* Gate
        const tools = path === "client tools" ? { tools: [{ type: "function", function: { name: "f" } }] } : {}
        const opened = yield* openStream({ messages: [user("hi")], ...tools })
        expect(opened.status).toBe(200)
        // Read until the model's first words arrived, then stop reading: the connection closes.
        const seen = yield* opened.body.pipe(
          Stream.scan("", (all, text) => all + text),
          Stream.takeUntil((all) => all.includes("held ")),
          Stream.runLast
        )
        expect(Option.getOrElse(seen, () => "")).toContain("\"content\":\"held \"")

        yield* control.interrupted.pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the generation was not interrupted") })
        )
        expect(yield* slotsOnce((slots) => field(slots, "active") === 0)).toMatchObject({ active: 0, queued: 0 })

        // The server carries on.
        yield* control.release
        const next = yield* chat({ messages: [user("again")], ...tools })
        expect(next.status).toBe(200)
        expect(field(json(next), "choices", 0, "message", "content")).toBe("held released")
      }).pipe(Effect.provide(gated({ parallel: 1, queueLimit: 0 }))))
  }
})
