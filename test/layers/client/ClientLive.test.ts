/**
 * The remote client against a real OpenAI-compatible peer on 127.0.0.1:
 * streaming, tool-call assembly, retries (timed on the TestClock), faults,
 * timeouts, TLS, configuration and the management calls.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  Cause,
  Chunk,
  Clock,
  ConfigProvider,
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  Fiber,
  Layer,
  Logger,
  Option,
  Redacted,
  Schedule,
  Stream,
  TestClock,
  TestServices
} from "effect"
import {
  AssistantMessage,
  ModelError,
  PromptProgress,
  SamplingParams,
  type SpanRecord,
  SystemMessage,
  ToolCall,
  ToolMessage,
  ToolSpec,
  Tracing,
  UserMessage
} from "easyai"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { type ClientConfig, clientConfig, endpoints } from "../../../src/domain/ClientConfig.js"
import type { ChatModelError } from "../../../src/domain/errors.js"
import type { ModelEvent } from "../../../src/domain/ModelEvent.js"
import { completionEvents, TurnAssembler } from "../../../src/layers/client/assemble.js"
import * as ClientLive from "../../../src/layers/client/ClientLive.js"
import { backoff } from "../../../src/layers/client/retry.js"
import { requestBody } from "../../../src/layers/client/wire.js"
import type { ChatRequest } from "../../../src/services/ChatModel.js"
import { Client } from "../../../src/services/Client.js"
import { openaiPeer, peerCertificate } from "../../support/openaiPeer.js"

// ---------------------------------------------------------------------------
// Helpers.

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [new UserMessage({ content: text })],
  tools: [],
  ...extra
})

const collect = (stream: Stream.Stream<ModelEvent, ChatModelError>) => Effect.map(Stream.runCollect(stream), Chunk.toArray)

/** Runs a stream to its end or failure, keeping what it emitted before failing. */
const partial = (stream: Stream.Stream<ModelEvent, ChatModelError>) =>
  Effect.gen(function*() {
    const seen: Array<ModelEvent> = []
    const result = yield* Stream.runForEach(stream, (event) => Effect.sync(() => seen.push(event))).pipe(Effect.either)
    return { seen, result }
  })

const textOf = (events: ReadonlyArray<ModelEvent>): string =>
  events.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : [])).join("")

const tagsOf = (events: ReadonlyArray<ModelEvent>): ReadonlyArray<string> => events.map((event) => event._tag)

/** A client on `config`, built in the test's scope. */
const client = (config: ClientConfig) => ClientLive.make(config)

/** Waits in real time (the peer works on real sockets), whatever clock the test runs on. */
const realSleep = (millis: number) => TestServices.provideLive(Effect.sleep(Duration.millis(millis)))

/** Bounds a wait on the peer in real time, so a broken test fails instead of hanging. */
const within = <A, E>(effect: Effect.Effect<A, E>) =>
  TestServices.provideLive(Effect.timeoutFail(effect, { duration: "5 seconds", onTimeout: () => new Error("timed out") }))

/**
 * Runs `effect` on the TestClock, jumping the clock to each short sleep
 * (≤ 10 s: the retry delays, not the 24 h inactivity timeout) as soon as it
 * is scheduled. Returns the exit and the delays jumped, in order.
 */
const drive = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    const delays: Array<number> = []
    for (;;) {
      if (Option.isSome(yield* Fiber.poll(fiber))) break
      const now = yield* Clock.currentTimeMillis
      const soon = Chunk.toReadonlyArray(yield* TestClock.sleeps()).filter((at) => at - now <= 10_000)
      if (soon.length === 0) {
        yield* realSleep(2)
        continue
      }
      const next = Math.min(...soon)
      delays.push(next - now)
      yield* TestClock.adjust(Duration.millis(next - now))
    }
    return { exit: yield* Fiber.await(fiber), delays }
  })

/** Captures log messages instead of printing them. */
const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ message }) => {
    lines.push(Array.isArray(message) ? message.map(String).join(" ") : String(message))
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

const quiet = Logger.replace(Logger.defaultLogger, Logger.none)

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`not a failure: ${Cause.pretty(exit.cause)}`)
  return failure.value
}

// ---------------------------------------------------------------------------

describe("Client chat streaming", () => {
  it.scopedLive("streams reasoning and text, then usage and the finish, ending at [DONE]", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({
        turns: [[...Scripted.reasoning("Let me ", "think."), ...Scripted.text("Hello", ", ", "world."), Scripted.usage(12, 3)]]
      })
      const events = yield* collect((yield* client({ baseUrl: peer.url })).chat(ask("hi")))
      expect(tagsOf(events)).toEqual([
        "ReasoningDelta",
        "ReasoningDelta",
        "TextDelta",
        "TextDelta",
        "TextDelta",
        "Usage",
        "Finished"
      ])
      expect(textOf(events)).toBe("Hello, world.")
      expect(events.at(-2)).toMatchObject({ _tag: "Usage", promptTokens: 12, completionTokens: 3 })
      expect(events.at(-1)).toMatchObject({ _tag: "Finished", reason: "stop" })
      expect(peer.chatBodies()).toHaveLength(1)
    }))

  it.scopedLive("assembles tool calls split across chunks and sent out of order, in index order", () =>
    Effect.gen(function*() {
      const weather = { city: "Lisbon", unit: "celsius", days: [1, 2, 3] }
      const peer = yield* openaiPeer({
        turns: [[
          ...Scripted.text("Checking."),
          Scripted.call("get_weather", weather, "call_a"),
          Scripted.call("get_time", { zone: "Europe/Lisbon" }),
          Scripted.call("noop", {}, "call_c")
        ]]
      })
      const events = yield* collect((yield* client({ baseUrl: peer.url })).chat(ask("weather?")))
      expect(tagsOf(events)).toEqual(["TextDelta", "ToolCallRequested", "ToolCallRequested", "ToolCallRequested", "Finished"])
      const calls = events.flatMap((event) => (event._tag === "ToolCallRequested" ? [event.call] : []))
      expect(calls.map((call) => call.name)).toEqual(["get_weather", "get_time", "noop"])
      expect(calls[0]?.id).toBe("call_a")
      expect(JSON.parse(calls[0]?.arguments ?? "")).toEqual(weather)
      expect(calls[1]?.id.startsWith("call_")).toBe(true) // generated: the peer sent none
      expect(calls[1]?.arguments).toBe("{\"zone\":\"Europe/Lisbon\"}")
      expect(calls[2]?.arguments).toBe("{}")
      expect(events.at(-1)).toMatchObject({ _tag: "Finished", reason: "tool_calls" })
    }))

  it.scopedLive("reports the finish reason length", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ turns: [[...Scripted.text("Once upon"), Scripted.finish("length")]] })
      const events = yield* collect((yield* client({ baseUrl: peer.url })).chat(ask("story")))
      expect(events.at(-1)).toMatchObject({ _tag: "Finished", reason: "length" })
    }))

  it.scopedLive("reads a non-streaming JSON answer into the same events", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({
        faults: { nonStreaming: true },
        turns: [[...Scripted.reasoning("hmm"), ...Scripted.text("Sure."), Scripted.call("pick", { color: "red" }, "c1"), Scripted.usage(5, 2)]]
      })
      const events = yield* collect((yield* client({ baseUrl: peer.url })).chat(ask("go")))
      expect(tagsOf(events)).toEqual(["ReasoningDelta", "TextDelta", "ToolCallRequested", "Usage", "Finished"])
      expect(events[2]).toMatchObject({ call: { id: "c1", name: "pick", arguments: "{\"color\":\"red\"}" } })
      expect(events.at(-1)).toMatchObject({ reason: "tool_calls" })
    }))

  it.scopedLive("a malformed chunk is a typed BadResponse, after what came before it", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { malformedAt: 2 }, turns: [Scripted.text("one", " two", " three")] })
      const { result, seen } = yield* partial((yield* client({ baseUrl: peer.url })).chat(ask("x")))
      expect(textOf(seen)).toBe("one")
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "ModelError", reason: "BadResponse" })
      expect(Either.isLeft(result) && result.left.message).toContain("malformed chunk")
    }))

  it.scopedLive("an error chunk mid-stream is a typed failure carrying the server's message", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({
        turns: [[...Scripted.text("partial"), Scripted.fail(new ModelError({ reason: "Unavailable", detail: "slot crashed" }))]]
      })
      const { result, seen } = yield* partial((yield* client({ baseUrl: peer.url })).chat(ask("x")))
      expect(textOf(seen)).toBe("partial")
      expect(Either.isLeft(result) && result.left.message).toContain("slot crashed")
    }))

  it.scopedLive("a body that stops without a finish reason or [DONE] is a Transport failure", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { omitDone: true, omitFinish: true }, turns: [Scripted.text("abc")] })
      const { result, seen } = yield* partial((yield* client({ baseUrl: peer.url })).chat(ask("x")))
      expect(textOf(seen)).toBe("abc")
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "ModelError", reason: "Transport" })
    }))

  it.scopedLive("a finish reason without [DONE] is a complete turn", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { omitDone: true }, turns: [Scripted.text("abc")] })
      const events = yield* collect((yield* client({ baseUrl: peer.url })).chat(ask("x")))
      expect(events.at(-1)).toMatchObject({ _tag: "Finished", reason: "stop" })
    }))
})

describe("Client request body", () => {
  const spec = new ToolSpec({
    name: "get_weather",
    description: "Get the weather.\n\nLong manual text that must not go on the wire.",
    shortDescription: "Current weather for a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  })
  const history = [
    new SystemMessage({ content: "You are terse." }),
    new UserMessage({ content: "Weather in Lisbon?" }),
    new AssistantMessage({
      content: "",
      toolCalls: [new ToolCall({ id: "call_1", name: "get_weather", arguments: "{\"city\":\"Lisbon\"}" })]
    }),
    new ToolMessage({ toolCallId: "call_1", name: "get_weather", content: "23 C, sunny" })
  ]

  it.scopedLive("carries the conversation, tools, sampling, penalties and limits; extra body merged last", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ turns: [Scripted.reply("It is sunny.")] })
      const c = yield* client({
        baseUrl: peer.url,
        model: "my-model",
        sampling: { temperature: 0.7, topK: 40 },
        penalties: { repeatPenalty: 1.1, frequencyPenalty: 0.2, presencePenalty: 0.3 },
        seed: 42,
        stop: ["USER:"],
        maxTokens: 256,
        extraBody: { temperature: 0.05, reasoning_effort: "high" }
      })
      yield* collect(c.chat({
        messages: history,
        tools: [spec],
        toolChoice: { name: "get_weather" },
        sampling: new SamplingParams({ temperature: 0.2, topP: 0.9, topK: 50, minP: 0.05 }),
        maxTokens: 128
      }))
      const [body] = peer.chatBodies()
      expect(body).toMatchObject({
        model: "my-model",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "Weather in Lisbon?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Lisbon\"}" } }]
          },
          { role: "tool", tool_call_id: "call_1", content: "23 C, sunny" }
        ],
        tools: [{
          type: "function",
          function: { name: "get_weather", description: "Current weather for a city.", parameters: spec.parameters }
        }],
        tool_choice: { type: "function", function: { name: "get_weather" } },
        temperature: 0.05, // the extra body wins
        reasoning_effort: "high",
        top_p: 0.9,
        top_k: 50,
        min_p: 0.05,
        repeat_penalty: 1.1,
        frequency_penalty: 0.2,
        presence_penalty: 0.3,
        max_tokens: 128,
        stop: ["USER:"],
        seed: 42,
        stream: true,
        stream_options: { include_usage: true }
      })
    }))

  it("maps tool choices and leaves out what is not set", () => {
    const base = { messages: [new UserMessage({ content: "hi" })], tools: [spec] }
    expect(requestBody({ ...base, toolChoice: "required" }, { baseUrl: "x" })["tool_choice"]).toBe("required")
    expect(requestBody({ ...base, toolChoice: "none" }, { baseUrl: "x" })["tool_choice"]).toBe("none")
    const plain = requestBody({ messages: base.messages, tools: [] }, { baseUrl: "x" })
    expect(Object.keys(plain).sort()).toEqual(["messages", "stream", "stream_options"])
  })

  it("sends a shaped answer's format as OpenAI's response_format", () => {
    const messages = [new UserMessage({ content: "hi" })]
    const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
    expect(requestBody({ messages, tools: [], responseFormat: { type: "json_schema", name: "answer", schema } }, { baseUrl: "x" })["response_format"])
      .toEqual({ type: "json_schema", json_schema: { name: "answer", schema, strict: true } })
    expect(requestBody({ messages, tools: [], responseFormat: { type: "json_object" } }, { baseUrl: "x" })["response_format"])
      .toEqual({ type: "json_object" })
    expect(requestBody({ messages, tools: [] }, { baseUrl: "x" })).not.toHaveProperty("response_format")
  })

  it("asks an easyai server for its events, without prompt progress when told", () => {
    const messages = [new UserMessage({ content: "hi" })]
    expect(requestBody({ messages, tools: [] }, { baseUrl: "x", promptProgress: false })["stream_options"])
      .toEqual({ include_usage: true, easyai_events: true, easyai_prompt_progress: false })
    expect(requestBody({ messages, tools: [] }, { baseUrl: "x", promptProgress: true })["stream_options"])
      .toEqual({ include_usage: true, easyai_events: true })
  })
})

describe("Client endpoints and authentication", () => {
  it("derives the endpoints from a base URL with or without /v1", () => {
    for (const base of ["http://h:8080", "http://h:8080/", "http://h:8080/v1", "http://h:8080/v1/"]) {
      expect(endpoints(base)).toMatchObject({ chat: "http://h:8080/v1/chat/completions", health: "http://h:8080/health" })
    }
    expect(endpoints("https://openrouter.ai/api/v1").chat).toBe("https://openrouter.ai/api/v1/chat/completions")
  })

  it.scopedLive("works against a base URL given with /v1", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ turns: [Scripted.reply("ok")] })
      const c = yield* client({ baseUrl: `${peer.url}/v1/` })
      expect(textOf(yield* collect(c.chat(ask("x"))))).toBe("ok")
      expect((yield* c.health).status).toBe("ok")
      expect(peer.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/health"])
    }))

  it.scopedLive("sends the API key as a Bearer token", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ apiKey: "s3cret", turns: [Scripted.reply("ok")] })
      const c = yield* client({ baseUrl: peer.url, apiKey: Redacted.make("s3cret") })
      expect(textOf(yield* collect(c.chat(ask("x"))))).toBe("ok")
      expect(peer.requests[0]?.headers.authorization).toBe("Bearer s3cret")
    }))

  it.scopedLive("asks an easyai server not to stamp a conversation of its own (X-Easyai-Inject: off), unless told it may", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ turns: [Scripted.reply("one"), Scripted.reply("two")] })
      yield* collect((yield* client({ baseUrl: peer.url })).chat(ask("x")))
      yield* collect((yield* client({ baseUrl: peer.url, serverPreamble: true })).chat(ask("y")))
      expect(peer.requests.map((r) => r.headers["x-easyai-inject"])).toEqual(["off", undefined])
    }))

  it.scopedLive("401: the key was refused, and it is not retried", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ apiKey: "right", turns: [Scripted.reply("ok")] })
      const error = yield* Effect.flip(collect((yield* client({ baseUrl: peer.url, apiKey: Redacted.make("wrong") })).chat(ask("x"))))
      expect(error).toMatchObject({ _tag: "ModelError", reason: "Unavailable" })
      expect(error.message).toContain("refused the API key")
      expect(error.message).toContain("Invalid API key")
      expect(peer.requests).toHaveLength(1)
      const missing = yield* Effect.flip(collect((yield* client({ baseUrl: peer.url })).chat(ask("x"))))
      expect(missing.message).toContain("requires an API key")
    }))

  it.scopedLive("429 is RateLimited; a context-length 400 is ContextOverflow; neither is retried", () =>
    Effect.gen(function*() {
      const limited = yield* openaiPeer({ faults: { failAlways: { status: 429, body: "{\"error\":{\"message\":\"slow down\"}}" } } })
      const rate = yield* Effect.flip(collect((yield* client({ baseUrl: limited.url })).chat(ask("x"))))
      expect(rate).toMatchObject({ _tag: "ModelError", reason: "RateLimited" })
      expect(limited.requests).toHaveLength(1)

      const llama = JSON.stringify({
        error: {
          code: 400,
          message: "the request exceeds the available context size, try increasing it",
          type: "exceed_context_size_error",
          n_prompt_tokens: 5000,
          n_ctx: 4096
        }
      })
      const full = yield* openaiPeer({ faults: { failAlways: { status: 400, body: llama } } })
      const overflow = yield* Effect.flip(collect((yield* client({ baseUrl: full.url })).chat(ask("x"))))
      expect(overflow).toMatchObject({ _tag: "ContextOverflow", promptTokens: 5000, contextSize: 4096 })
      expect(full.requests).toHaveLength(1)

      const openai = JSON.stringify({
        error: {
          message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.",
          type: "invalid_request_error",
          code: "context_length_exceeded"
        }
      })
      const big = yield* openaiPeer({ faults: { failAlways: { status: 400, body: openai } } })
      const overflow2 = yield* Effect.flip(collect((yield* client({ baseUrl: big.url })).chat(ask("x"))))
      expect(overflow2).toMatchObject({ _tag: "ContextOverflow", promptTokens: 9001, contextSize: 8192 })

      const plain = yield* openaiPeer({ faults: { failAlways: { status: 400, body: "{\"error\":\"bad field\"}" } } })
      const rejected = yield* Effect.flip(collect((yield* client({ baseUrl: plain.url })).chat(ask("x"))))
      expect(rejected).toMatchObject({ _tag: "ModelError", reason: "BadResponse" })
      expect(rejected.message).toContain("bad field")
    }))
})

describe("Client retries", () => {
  it.effect("the backoff is 250 ms, 500 ms, 1 s, 2 s, 4 s, 4 s … and stops after `retries`", () =>
    Effect.gen(function*() {
      /** The delays the schedule decides to wait before each retry, over plenty of failures. */
      const retryDelays = (retries: number) =>
        Effect.gen(function*() {
          const seen: Array<number> = []
          const tracked = Schedule.delays(backoff(retries)).pipe(
            Schedule.onDecision((delay, decision) =>
              Effect.sync(() => {
                if (decision._tag === "Continue") seen.push(Duration.toMillis(delay))
              })
            )
          )
          yield* Schedule.run(tracked, 0, Array.from({ length: 20 }, (_, i) => i))
          return seen
        })
      expect(yield* retryDelays(7)).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000])
      expect(yield* retryDelays(5)).toEqual([250, 500, 1000, 2000, 4000])
      expect(yield* retryDelays(0)).toEqual([])
    }))

  it.scoped("503 then 200: retried on the schedule, each retry logged once", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { failFirst: { status: 503, times: 2 } }, turns: [Scripted.reply("back")] })
      const logs = captureLogs()
      const c = yield* client({ baseUrl: peer.url })
      const { exit, delays } = yield* drive(collect(c.chat(ask("x"))).pipe(Effect.provide(logs.layer)))
      expect(Exit.isSuccess(exit) && textOf(exit.value)).toBe("back")
      expect(delays).toEqual([250, 500])
      expect(peer.requests).toHaveLength(3)
      expect(logs.lines).toEqual([
        "HTTP attempt 1/6 failed (HTTP 503); retrying in 250ms",
        "HTTP attempt 2/6 failed (HTTP 503); retrying in 500ms"
      ])
    }))

  it.scoped("each attempt is a Client.attempt span under Client.chat, the failed ones with their error", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { failFirst: { status: 503, times: 2 } }, turns: [Scripted.reply("back")] })
      const c = yield* client({ baseUrl: peer.url })
      const spans: Array<SpanRecord.SpanRecord> = []
      const { exit } = yield* drive(
        collect(c.chat(ask("x"))).pipe(Effect.provide(quiet), Effect.provide(Tracing.recordingLayer([(span) => spans.push(span)])))
      )
      expect(Exit.isSuccess(exit)).toBe(true)
      const chat = spans.find((span) => span.name === "Client.chat")
      const attempts = spans.filter((span) => span.name === "Client.attempt")
      expect(attempts.map((span) => [span.attributes["easyai.retry.attempt"], span.status])).toEqual([[1, "error"], [2, "error"], [3, "ok"]])
      expect(attempts.every((span) => span.parentSpanId === chat?.spanId)).toBe(true)
      expect(attempts[0]?.error).toContain("503")
    }))

  it.scoped("connections closed at once, then success", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { dropConnections: 2 }, turns: [Scripted.reply("hello")] })
      const c = yield* client({ baseUrl: peer.url })
      const { exit, delays } = yield* drive(collect(c.chat(ask("x"))).pipe(Effect.provide(quiet)))
      expect(Exit.isSuccess(exit) && textOf(exit.value)).toBe("hello")
      expect(delays).toEqual([250, 500])
      expect(peer.connections()).toBeGreaterThanOrEqual(3)
      expect(peer.requests).toHaveLength(1)
    }))

  it.scoped("gives up after `retries` retries with the whole schedule", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { failAlways: { status: 502, body: "bad gateway" } } })
      const c = yield* client({ baseUrl: peer.url })
      const logs = captureLogs()
      const { exit, delays } = yield* drive(collect(c.chat(ask("x"))).pipe(Effect.provide(logs.layer)))
      expect(delays).toEqual([250, 500, 1000, 2000, 4000])
      expect(logs.lines).toHaveLength(5) // the final failure is not a retry
      expect(logs.lines.at(-1)).toBe("HTTP attempt 5/6 failed (HTTP 502); retrying in 4000ms")
      expect(peer.requests).toHaveLength(6)
      const error = failureOf(exit)
      expect(error).toMatchObject({ _tag: "ModelError", reason: "Unavailable" })
      expect(error.message).toContain("after 6 attempts")
    }))

  it.scoped("retries: 0 disables retrying", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { failFirst: { status: 503, times: 1 } }, turns: [Scripted.reply("x")] })
      const c = yield* client({ baseUrl: peer.url, retries: 0 })
      const logs = captureLogs()
      const { exit, delays } = yield* drive(collect(c.chat(ask("x"))).pipe(Effect.provide(logs.layer)))
      expect(delays).toEqual([])
      expect(logs.lines).toEqual([])
      expect(failureOf(exit)).toMatchObject({ _tag: "ModelError", reason: "Unavailable" })
      expect(peer.requests).toHaveLength(1)
    }))

  it.scopedLive("an unreachable server is a Transport failure", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(Effect.map(openaiPeer(), (peer) => peer.url)) // closed again: nothing listens
      const error = yield* Effect.flip(collect((yield* client({ baseUrl: url, retries: 0 })).chat(ask("x"))))
      expect(error).toMatchObject({ _tag: "ModelError", reason: "Transport" })
      expect(error.message).toContain("ECONNREFUSED")
    }))

  it.scopedLive("a stall before the first byte times out and is retried; the stalled request is aborted", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { stallBeforeHeaders: 1 }, turns: [Scripted.reply("late")] })
      const c = yield* client({ baseUrl: peer.url, timeout: "300 millis", retries: 1 })
      const events = yield* collect(c.chat(ask("x"))).pipe(Effect.provide(quiet))
      expect(textOf(events)).toBe("late")
      expect(peer.chatBodies()).toHaveLength(2)
      yield* within(peer.waitFor(() => peer.aborted() >= 1))
    }))
})

describe("Client mid-stream failures", () => {
  it.scopedLive("a stream cut mid-way keeps what arrived, fails with Transport, and is not retried", () =>
    Effect.gen(function*() {
      // role chunk + 2 text chunks, then the socket is destroyed
      const peer = yield* openaiPeer({ faults: { cutAfterChunks: 3 }, turns: [Scripted.text("a", "b", "c", "d", "e")] })
      const { result, seen } = yield* partial((yield* client({ baseUrl: peer.url })).chat(ask("x")))
      expect(textOf(seen)).toBe("ab")
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "ModelError", reason: "Transport" })
      expect(peer.chatBodies()).toHaveLength(1)
    }))

  it.scopedLive("inactivity after the first byte fails with a typed Transport error", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { stallAfterChunks: 2 }, turns: [Scripted.text("first", " second")] })
      const c = yield* client({ baseUrl: peer.url, timeout: "300 millis" })
      const { result, seen } = yield* partial(c.chat(ask("x")))
      expect(textOf(seen)).toBe("first")
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "ModelError", reason: "Transport" })
      expect(Either.isLeft(result) && result.left.message).toContain("inactivity timeout")
      expect(peer.chatBodies()).toHaveLength(1)
    }))

  it.scopedLive("every chunk resets the inactivity timeout", () =>
    Effect.gen(function*() {
      const slow = [
        ...Scripted.text("a"),
        Scripted.delay("150 millis"),
        ...Scripted.text("b"),
        Scripted.delay("150 millis"),
        ...Scripted.text("c"),
        Scripted.delay("150 millis"),
        ...Scripted.text("d")
      ]
      const peer = yield* openaiPeer({ turns: [slow] })
      const c = yield* client({ baseUrl: peer.url, timeout: "400 millis" })
      expect(textOf(yield* collect(c.chat(ask("x"))))).toBe("abcd")
    }))

  it.scopedLive("interrupting the stream aborts the request at once", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ turns: [[...Scripted.text("Once"), Scripted.delay("1 hour"), ...Scripted.text(" more")]] })
      const c = yield* client({ baseUrl: peer.url })
      const first = yield* Deferred.make<void>()
      const fiber = yield* c.chat(ask("x")).pipe(
        Stream.runForEach((event) => (event._tag === "TextDelta" ? Deferred.succeed(first, undefined) : Effect.void)),
        Effect.fork
      )
      yield* within(Deferred.await(first))
      expect(peer.aborted()).toBe(0)
      yield* Fiber.interrupt(fiber)
      yield* within(peer.waitFor(() => peer.aborted() === 1))
    }))
})

describe("Client TLS", () => {
  it.scopedLive("trusts a CA file, or skips verification when insecure; refuses an unknown certificate", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ tls: true, turns: [Scripted.reply("one"), Scripted.reply("two")] })
      const dir = mkdtempSync(path.join(tmpdir(), "easyai-ca-"))
      const caFile = path.join(dir, "ca.pem")
      writeFileSync(caFile, peerCertificate)
      const trusted = yield* client({ baseUrl: peer.url, tls: { caFile } })
      expect(textOf(yield* collect(trusted.chat(ask("x"))))).toBe("one")
      const insecure = yield* client({ baseUrl: peer.url, tls: { insecure: true } })
      expect(textOf(yield* collect(insecure.chat(ask("x"))))).toBe("two")
      const strict = yield* client({ baseUrl: peer.url, retries: 0 })
      const error = yield* Effect.flip(collect(strict.chat(ask("x"))))
      expect(error).toMatchObject({ _tag: "ModelError", reason: "Transport" })
      const missing = yield* Effect.flip(client({ baseUrl: peer.url, tls: { caFile: path.join(dir, "nope.pem") } }))
      expect(missing).toMatchObject({ _tag: "ConfigurationError" })
      expect(missing.message).toContain("nope.pem")
    }))
})

describe("Client configuration", () => {
  const fromMap = (entries: Record<string, string>) => ConfigProvider.fromMap(new Map(Object.entries(entries)))

  it.effect("reads the environment", () =>
    Effect.gen(function*() {
      const config = yield* clientConfig().pipe(Effect.withConfigProvider(fromMap({
        EASYAI_URL: "http://ai.local:8080/v1",
        EASYAI_API_KEY: "k-123",
        EASYAI_TIMEOUT: "30",
        EASYAI_HTTP_RETRIES: "0",
        EASYAI_TLS_INSECURE: "true",
        EASYAI_EXTRA_BODY: "{\"reasoning_effort\":\"high\"}"
      })))
      expect(config.baseUrl).toBe("http://ai.local:8080/v1")
      expect(config.apiKey !== undefined && Redacted.value(config.apiKey)).toBe("k-123")
      expect(config.timeout !== undefined && Duration.toSeconds(config.timeout)).toBe(30)
      expect(config.retries).toBe(0)
      expect(config.tls).toEqual({ insecure: true })
      expect(config.extraBody).toEqual({ reasoning_effort: "high" })
    }))

  it.effect("overrides win over the environment; an empty key is no key; bad values are ConfigErrors", () =>
    Effect.gen(function*() {
      const config = yield* clientConfig({ baseUrl: "http://other:1", model: "m", retries: 2 }).pipe(
        Effect.withConfigProvider(fromMap({ EASYAI_URL: "http://ai.local", EASYAI_API_KEY: "", EASYAI_HTTP_RETRIES: "4" }))
      )
      expect(config).toEqual({ baseUrl: "http://other:1", model: "m", retries: 2 })
      const bad = (entries: Record<string, string>) =>
        Effect.flip(clientConfig().pipe(Effect.withConfigProvider(fromMap(entries))))
      expect((yield* bad({})).toString()).toContain("EASYAI_URL")
      expect((yield* bad({ EASYAI_URL: "http://x", EASYAI_HTTP_RETRIES: "-1" })).toString()).toContain("EASYAI_HTTP_RETRIES")
      expect((yield* bad({ EASYAI_URL: "http://x", EASYAI_TIMEOUT: "0" })).toString()).toContain("EASYAI_TIMEOUT")
      expect((yield* bad({ EASYAI_URL: "http://x", EASYAI_EXTRA_BODY: "[1]" })).toString()).toContain("JSON object")
    }))

  it.scopedLive("layerConfig builds a working client from the environment", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ apiKey: "env-key", turns: [Scripted.reply("from env")] })
      const env = fromMap({ EASYAI_URL: `${peer.url}/v1`, EASYAI_API_KEY: "env-key", EASYAI_HTTP_RETRIES: "0" })
      const events = yield* Effect.flatMap(Client, (c) => collect(c.chat(ask("x")))).pipe(
        Effect.provide(ClientLive.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(env))))
      )
      expect(textOf(events)).toBe("from env")
    }))

  it.scoped("a configuration that cannot work fails the layer", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(client({ baseUrl: "ftp://example.com", retries: -1 }))
      expect(error.message).toContain("http:// or https://")
      expect(error.message).toContain("retries")
    }))
})

describe("Client management calls", () => {
  it.scopedLive("models, tools, health, props, metrics and setPreset return typed results", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ apiKey: "k" })
      const c = yield* client({ baseUrl: peer.url, apiKey: Redacted.make("k") })
      expect(yield* c.models).toEqual([{ id: "peer-model", ownedBy: "easyai", created: 1_700_000_000 }])
      expect(yield* c.tools).toEqual([
        { name: "datetime", description: "Current date and time.", parameters: { type: "object", properties: {} } },
        {
          name: "web_search",
          description: "Search the web.",
          parameters: { type: "object", properties: { query: { type: "string" } } }
        }
      ])
      expect(yield* c.health).toEqual({ status: "ok", details: { status: "ok", slots_idle: 1 } })
      expect(yield* c.props).toEqual({ n_ctx: 4096, model_alias: "peer-model", build_info: "peer" })
      expect(yield* c.metrics).toContain("easyai_requests_total 3")
      yield* c.setPreset("creative")
      const preset = peer.requests.at(-1)
      expect(preset).toMatchObject({ method: "POST", path: "/v1/preset", body: { preset: "creative" } })
      expect(preset?.headers.authorization).toBe("Bearer k")
    }))

  it.scopedLive("management failures are typed: status, unexpected body", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ apiKey: "k", management: { models: { data: [{ name: "no id" }] } } })
      const anonymous = yield* client({ baseUrl: peer.url })
      const logs = captureLogs()
      expect(yield* Effect.flip(anonymous.tools.pipe(Effect.provide(logs.layer)))).toMatchObject({ _tag: "HttpStatusError", status: 401 })
      expect(logs.lines).toEqual([]) // a 4xx is not retried, so nothing is logged
      const keyed = yield* client({ baseUrl: peer.url, apiKey: Redacted.make("k") })
      expect(yield* Effect.flip(keyed.models)).toMatchObject({ _tag: "InvalidResponseError" })
      expect(peer.requests).toHaveLength(2)
    }))

  it.scoped("management calls are retried on the same schedule", () =>
    Effect.gen(function*() {
      const peer = yield* openaiPeer({ faults: { failFirst: { status: 500, times: 1 } } })
      const c = yield* client({ baseUrl: peer.url })
      const { exit, delays } = yield* drive(c.metrics.pipe(Effect.provide(quiet)))
      expect(Exit.isSuccess(exit) && exit.value).toContain("easyai_requests_total")
      expect(delays).toEqual([250])
    }))
})

describe("TurnAssembler", () => {
  it("merges fragments by index whatever their order, ids kept or generated", () => {
    let n = 0
    const assembler = new TurnAssembler(() => `gen_${++n}`)
    const push = (chunk: Parameters<TurnAssembler["push"]>[0]) => {
      const events = assembler.push(chunk)
      if (Either.isLeft(events)) throw new Error("unexpected failure")
      return events.right
    }
    push({ choices: [{ delta: { tool_calls: [{ index: 2, function: { arguments: "{\"b\":" } }] } }] })
    push({ choices: [{ delta: { tool_calls: [{ index: 0, id: "x0", function: { name: "first", arguments: "" } }] } }] })
    push({ choices: [{ delta: { tool_calls: [{ index: 2, function: { name: "third", arguments: "2}" } }] } }] })
    push({ choices: [{ delta: { content: "hi", tool_calls: [{ index: 0, function: { arguments: "{\"a\":1}" } }] } }] })
    push({ choices: [{ delta: {}, finish_reason: "stop" }] })
    const closing = assembler.finish(false)
    expect(Either.isRight(closing)).toBe(true)
    const events = Either.getOrThrow(closing)
    expect(events.map((event) => (event._tag === "ToolCallRequested" ? [event.call.id, event.call.name, event.call.arguments] : event._tag)))
      .toEqual([["x0", "first", "{\"a\":1}"], ["gen_1", "third", "{\"b\":2}"], "Finished"])
    expect(events.at(-1)).toMatchObject({ reason: "tool_calls" })
  })

  it("reads easyai's prompt progress events", () => {
    const assembler = new TurnAssembler()
    const events = assembler.push({ choices: [], prompt_progress: { processed: 512, total: 2048 } })
    expect(Either.getOrThrow(events)).toEqual([new PromptProgress({ processed: 512, total: 2048 })])
  })

  it("takes the context's size and fill from an easyai server's timings, and leaves the size unknown without them", () => {
    const usageOf = (chunk: Parameters<TurnAssembler["push"]>[0]) => {
      const assembler = new TurnAssembler()
      assembler.push(chunk)
      assembler.push({ choices: [{ delta: {}, finish_reason: "stop" }] })
      return Either.getOrThrow(assembler.finish(false)).find((event) => event._tag === "Usage")
    }
    const usage = { prompt_tokens: 800, completion_tokens: 100 }
    expect(usageOf({ choices: [], usage, timings: { n_ctx_used: 905, n_ctx: 1000 } })).toMatchObject({
      contextUsed: 905,
      contextSize: 1000
    })
    const plain = usageOf({ choices: [], usage })
    expect(plain).toMatchObject({ contextUsed: 900 })
    expect(plain?._tag === "Usage" && plain.contextSize).toBeUndefined()
  })

  it("a turn cut by the token limit is length, its call with unfinished arguments dropped, a whole one kept", () => {
    const assembler = new TurnAssembler()
    assembler.push({ choices: [{ delta: { tool_calls: [{ index: 0, id: "a", function: { name: "first", arguments: "{\"x\":1}" } }] } }] })
    assembler.push({ choices: [{ delta: { tool_calls: [{ index: 1, id: "b", function: { name: "second", arguments: "{\"city\":\"Par" } }] } }] })
    assembler.push({ choices: [{ delta: {}, finish_reason: "length" }] })
    const events = Either.getOrThrow(assembler.finish(true))
    expect(events.map((event) => (event._tag === "ToolCallRequested" ? event.call.name : event._tag))).toEqual(["first", "Finished"])
    expect(events.at(-1)).toMatchObject({ reason: "length" })
    const whole = Either.getOrThrow(completionEvents({
      choices: [{
        message: { content: null, tool_calls: [{ id: "c", function: { name: "get_weather", arguments: "{\"city\":\"Par" } }] },
        finish_reason: "length"
      }]
    }))
    expect(whole.map((event) => event._tag)).toEqual(["Finished"])
    expect(whole.at(-1)).toMatchObject({ reason: "length" })
  })

  it("a tool call without a name is a BadResponse", () => {
    const assembler = new TurnAssembler()
    assembler.push({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: "{}" } }] }, finish_reason: "tool_calls" }] })
    const closing = assembler.finish(true)
    expect(Either.isLeft(closing) && closing.left).toMatchObject({ _tag: "ModelError", reason: "BadResponse" })
  })
})
