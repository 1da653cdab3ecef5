import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ServerLive } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import {
  chat,
  field,
  json,
  scriptedRequests,
  scriptedServer,
  send,
  sseFrames,
  streamedContent,
  withoutClock
} from "../../support/server.js"
import { echo } from "../../support/tools.js"

const user = (content: string) => ({ role: "user", content })

/** A server on a scripted model, with `echo` as its only server-side tool; the recorder stays readable. */
/** A server on scripted turns whose own toolbelt is `echo`. */
const scripted = (turns: ReadonlyArray<ScriptedChatModel.Turn>, options: Partial<ServerLive.Options<never>> = {}) =>
  scriptedServer(turns, { session: { withDefaultTools: false, tools: [echo] }, ...options })

const requests = scriptedRequests

const systemSeen = Effect.map(requests, (all) => {
  const first = all[0]?.messages[0]
  return first?._tag === "SystemMessage" ? first.content : undefined
})

describe("POST /v1/chat/completions", () => {
  it.live("answers a whole completion in OpenAI's shape", () =>
    Effect.gen(function*() {
      const reply = yield* chat({ model: "easyai", messages: [user("hi")] })
      expect(reply.status).toBe(200)
      const body = json(reply)
      expect(field(body, "object")).toBe("chat.completion")
      expect(String(field(body, "id"))).toMatch(/^chatcmpl-/)
      expect(field(body, "choices", 0, "message")).toEqual({ role: "assistant", content: "Hello there." })
      expect(field(body, "choices", 0, "finish_reason")).toBe("stop")
      expect(field(body, "usage", "completion_tokens")).toBe(3)
    }).pipe(Effect.provide(scripted([[...ScriptedChatModel.reply("Hello there."), ScriptedChatModel.usage(7, 3)]]))))

  it.live("streams chunks: the role first, the deltas, the finish reason, the usage when asked, then [DONE]", () =>
    Effect.gen(function*() {
      const reply = yield* chat({ messages: [user("hi")], stream: true, stream_options: { include_usage: true } })
      expect(reply.status).toBe(200)
      expect(reply.headers["content-type"]).toContain("text/event-stream")
      const frames = sseFrames(reply.text)
      expect(frames.at(-1)?.data).toBe("[DONE]")
      const chunks = frames.filter((frame) => frame.event === undefined && frame.data !== "[DONE]").map((frame) => JSON.parse(frame.data))
      expect(field(chunks[0], "choices", 0, "delta")).toEqual({ role: "assistant", content: "" })
      expect(chunks.every((chunk) => field(chunk, "object") === "chat.completion.chunk")).toBe(true)
      expect(streamedContent(frames)).toBe("Hello there.")
      expect(field(chunks.at(-2), "choices", 0, "finish_reason")).toBe("stop")
      expect(field(chunks.at(-1), "usage", "prompt_tokens")).toBe(7)
      expect(field(chunks.at(-1), "choices")).toEqual([])
    }).pipe(Effect.provide(scripted([[...ScriptedChatModel.reply("Hello there."), ScriptedChatModel.usage(7, 3)]]))))

  it.live("streams reasoning as reasoning_content", () =>
    Effect.gen(function*() {
      const frames = sseFrames((yield* chat({ messages: [user("hi")], stream: true })).text)
      const reasoning = frames
        .filter((frame) => frame.event === undefined && frame.data !== "[DONE]")
        .map((frame) => field(JSON.parse(frame.data), "choices", 0, "delta", "reasoning_content"))
        .filter((text) => typeof text === "string")
      expect(reasoning.join("")).toBe("Let me think.")
      expect(streamedContent(frames)).toBe("Done.")
    }).pipe(Effect.provide(scripted([[...ScriptedChatModel.reasoning("Let me think."), ...ScriptedChatModel.text("Done.")]]))))

  describe("the system prompt", () => {
    it.live("uses the client's last system message, with the AUTHORITATIVE preamble appended", () =>
      Effect.gen(function*() {
        yield* chat({
          messages: [{ role: "system", content: "Old rule." }, { role: "developer", content: "Be brief." }, user("hi")]
        })
        const system = yield* systemSeen
        expect(system?.startsWith("Be brief.\n\n# AUTHORITATIVE DATE/TIME")).toBe(true)
        expect(system).not.toContain("Old rule.")
        expect(system).not.toContain("You are Deep")
        expect((yield* requests)[0]?.messages.at(-1)?.content).toMatch(/^hi\n\nSent: \d{4}-\d{2}-\d{2} [^\n]+$/)
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("ok")]))))

    it.live("composes the server's own when the client sends none: base, tools, then the preamble", () =>
      Effect.gen(function*() {
        yield* chat({ messages: [user("hi")] })
        const system = yield* systemSeen
        expect(system?.startsWith("You are Deep")).toBe(true)
        expect(system).toContain("# AUTHORITATIVE DATE/TIME")
        expect(system).toContain("- echo — ")
        // The preamble comes last: its memory vocabulary, the one part a memory write changes, then invalidates the least.
        expect(system?.indexOf("- echo — ")).toBeLessThan(system?.indexOf("# AUTHORITATIVE DATE/TIME") ?? -1)
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("ok")]))))

    it.live("keeps the system prompt of a conversation byte-identical from one request to the next; each user message keeps the time it was sent", () =>
      Effect.gen(function*() {
        yield* chat({ messages: [user("first")] })
        yield* chat({ messages: [user("first"), { role: "assistant", content: "one" }, user("second")] })
        const [one, two] = yield* requests
        expect(two?.messages[0]?.content).toBe(one?.messages[0]?.content)
        expect(one?.messages[0]?.content).not.toMatch(/Sent: \d/)
        // The first message as it was first sent, note included; the second's note (or none, within
        // the same minute) is the preamble's to decide, under a clock this test does not control.
        expect(two?.messages.slice(1, 3).map((message) => message.content)).toEqual([one?.messages.at(-1)?.content, "one"])
        expect(withoutClock(two?.messages.at(-1)?.content ?? "")).toBe("second")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("one"), ScriptedChatModel.reply("two")]))))

    it.live("X-Easyai-Inject: off leaves the client's system message exactly as sent", () =>
      Effect.gen(function*() {
        yield* chat({ messages: [{ role: "system", content: "Be brief." }, user("hi")] }, { "x-easyai-inject": "off" })
        expect(yield* systemSeen).toBe("Be brief.")
        expect((yield* requests)[0]?.messages.at(-1)?.content).toBe("hi")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("ok")]))))

    it.live("X-Easyai-Inject: on forces the preamble on a server started without it", () =>
      Effect.gen(function*() {
        yield* chat({ messages: [{ role: "system", content: "Be brief." }, user("hi")] })
        expect(yield* systemSeen).toBe("Be brief.")
        yield* chat({ messages: [{ role: "system", content: "Be brief." }, user("hi")] }, { "x-easyai-inject": "on" })
        const all = yield* requests
        const forced = all[1]?.messages[0]
        expect(forced?._tag === "SystemMessage" && forced.content.startsWith("Be brief.\n\n# AUTHORITATIVE DATE/TIME")).toBe(true)
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("a"), ScriptedChatModel.reply("b")], {
        server: { injectPreamble: false }
      }))))

    it.live("rejects an X-Easyai-Inject value other than on or off", () =>
      Effect.gen(function*() {
        const reply = yield* chat({ messages: [user("hi")] }, { "x-easyai-inject": "maybe" })
        expect(reply.status).toBe(400)
        expect(field(json(reply), "error", "message")).toContain("X-Easyai-Inject")
      }).pipe(Effect.provide(scripted([]))))
  })

  describe("the client's tools", () => {
    const weather = {
      type: "function",
      function: {
        name: "get_weather",
        description: "The weather in a city.",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
      }
    }

    it.live("run one pass and hand the tool calls back (finish_reason tool_calls); no server tool runs", () =>
      Effect.gen(function*() {
        const reply = yield* chat({ messages: [user("weather in Lisbon?")], tools: [weather] })
        const body = json(reply)
        expect(field(body, "choices", 0, "finish_reason")).toBe("tool_calls")
        expect(field(body, "choices", 0, "message", "content")).toBeNull()
        expect(field(body, "choices", 0, "message", "tool_calls")).toEqual([
          { id: "call_w1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Lisbon\"}" } }
        ])
        const seen = yield* requests
        expect(seen).toHaveLength(1)
        expect(seen[0]?.tools.map((tool) => tool.name)).toEqual(["get_weather"])
      }).pipe(Effect.provide(scripted([ScriptedChatModel.toolCall("get_weather", { city: "Lisbon" }, { id: "call_w1" })]))))

    it.live("stream tool calls as indexed tool_calls deltas", () =>
      Effect.gen(function*() {
        const frames = sseFrames((yield* chat({ messages: [user("weather?")], tools: [weather], stream: true })).text)
        const chunks = frames.filter((frame) => frame.data !== "[DONE]").map((frame) => JSON.parse(frame.data))
        const calls = chunks.flatMap((chunk) => {
          const delta = field(chunk, "choices", 0, "delta", "tool_calls")
          return Array.isArray(delta) ? delta : []
        })
        expect(calls).toEqual([
          { index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }
        ])
        expect(field(chunks.at(-1), "choices", 0, "finish_reason")).toBe("tool_calls")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.toolCall("get_weather", { city: "Paris" }, { id: "call_a" })]))))

    it.live("take the tool results of the client's next request and let the model answer", () =>
      Effect.gen(function*() {
        const reply = yield* chat({
          messages: [
            user("weather?"),
            { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Rome\"}" } }] },
            { role: "tool", tool_call_id: "c1", content: "31 °C" }
          ],
          tools: [weather]
        })
        expect(field(json(reply), "choices", 0, "message", "content")).toBe("It is 31 °C.")
        const messages = (yield* requests)[0]?.messages ?? []
        expect(messages.map((message) => message._tag)).toEqual(["SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage"])
        const result = messages[3]
        expect(result?._tag === "ToolMessage" ? [result.name, result.content] : []).toEqual(["get_weather", "31 °C"])
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("It is 31 °C.")]))))
  })

  describe("the server's own tools", () => {
    const turns = [ScriptedChatModel.toolCall("echo", { text: "ping" }, { id: "call_e" }), ScriptedChatModel.reply("The echo said ping.")]

    it.live("run server-side through the agent loop; the answer comes back whole", () =>
      Effect.gen(function*() {
        const body = json(yield* chat({ messages: [user("echo ping")] }))
        expect(field(body, "choices", 0, "message")).toEqual({ role: "assistant", content: "The echo said ping." })
        const seen = yield* requests
        expect(seen).toHaveLength(2)
        const result = seen[1]?.messages.at(-1)
        expect(result?._tag === "ToolMessage" ? result.content : "").toBe("ping")
      }).pipe(Effect.provide(scripted(turns))))

    it.live("show, to a client that opts in, as easyai.tool_call / easyai.tool_result events and an indicator line", () =>
      Effect.gen(function*() {
        const frames = sseFrames((yield* chat({
          messages: [user("echo ping")],
          stream: true,
          stream_options: { easyai_events: true, easyai_tool_indicators: true }
        })).text)
        const call = frames.find((frame) => frame.event === "easyai.tool_call")
        const result = frames.find((frame) => frame.event === "easyai.tool_result")
        expect(field(JSON.parse(call?.data ?? "{}"), "tool_call")).toEqual({ id: "call_e", name: "echo", arguments: "{\"text\":\"ping\"}" })
        const finished = JSON.parse(result?.data ?? "{}")
        expect(field(finished, "tool_result", "content")).toBe("ping")
        expect(field(finished, "tool_result", "is_error")).toBe(false)
        expect(field(finished, "choices")).toEqual([])
        expect(streamedContent(frames)).toBe("\n\n> ✓ `echo`\n\nThe echo said ping.")
      }).pipe(Effect.provide(scripted(turns))))

    it.live("send an easyai.prompt_eval event per model pass to a client that opts in", () =>
      Effect.gen(function*() {
        const frames = sseFrames((yield* chat({
          messages: [user("echo ping")],
          stream: true,
          stream_options: { easyai_events: true }
        })).text)
        const evals = frames.filter((frame) => frame.event === "easyai.prompt_eval").map((frame) => JSON.parse(frame.data))
        expect(evals.map((data) => field(data, "prompt_eval"))).toEqual([
          { prompt_n: 20, cache_n: 0, predicted_n: 4 },
          { prompt_n: 26, cache_n: 0, predicted_n: 6 }
        ])
        expect(field(evals[0], "object")).toBe("easyai.prompt_eval")
        const quiet = sseFrames((yield* chat({ messages: [user("echo ping")], stream: true })).text)
        expect(quiet.some((frame) => frame.event === "easyai.prompt_eval")).toBe(false)
      }).pipe(Effect.provide(scripted([
        [...turns[0]!, ScriptedChatModel.usage(20, 4)],
        [...turns[1]!, ScriptedChatModel.usage(26, 6)],
        ScriptedChatModel.reply("again")
      ]))))

    it.live("keep quiet by default: a plain OpenAI stream, every chunk with its choice", () =>
      Effect.gen(function*() {
        const frames = sseFrames((yield* chat({ messages: [user("echo ping")], stream: true })).text)
        expect(frames.filter((frame) => frame.event !== undefined)).toEqual([])
        const chunks = frames.filter((frame) => frame.data !== "[DONE]").map((frame) => JSON.parse(frame.data))
        expect(chunks.every((chunk) => Array.isArray(field(chunk, "choices")) && field(chunk, "choices", 0) !== undefined)).toBe(true)
        expect(streamedContent(frames)).toBe("The echo said ping.")
      }).pipe(Effect.provide(scripted(turns))))

    it.live("come as events, without indicators, with the X-Easyai-Events: on header", () =>
      Effect.gen(function*() {
        const frames = sseFrames((yield* send("POST", "/v1/chat/completions", {
          headers: { "x-easyai-events": "on" },
          json: { messages: [user("echo ping")], stream: true }
        })).text)
        expect(frames.map((frame) => frame.event).filter((event) => event !== undefined)).toEqual(["easyai.tool_call", "easyai.tool_result"])
        expect(streamedContent(frames)).toBe("The echo said ping.")
        const refused = yield* send("POST", "/v1/chat/completions", { headers: { "x-easyai-events": "maybe" }, json: { messages: [user("hi")] } })
        expect(refused.status).toBe(400)
      }).pipe(Effect.provide(scripted(turns))))
  })

  describe("sampling", () => {
    it.live("applies the body's sampling fields to this request only", () =>
      Effect.gen(function*() {
        yield* chat({ messages: [user("a")], temperature: 0.55, top_k: 7 })
        yield* chat({ messages: [user("b")] })
        const [first, second] = yield* requests
        expect(first?.sampling).toMatchObject({ temperature: 0.55, topK: 7, topP: 1, minP: 0.1 })
        expect(second?.sampling).toMatchObject({ temperature: 0.2, topK: 50 })
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("a"), ScriptedChatModel.reply("b")]))))

    it.live("peels an inline preset prefix off the last user message and applies it", () =>
      Effect.gen(function*() {
        yield* chat({ messages: [user("creative 0.9 write a poem")] })
        const [request] = yield* requests
        const last = request?.messages.at(-1)
        expect(last?._tag === "UserMessage" ? withoutClock(last.content) : "").toBe("write a poem")
        expect(request?.sampling).toMatchObject({ temperature: 0.9, topP: 0.95, topK: 50, minP: 0 })
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("ok")]))))

    it.live("takes the body's preset for this request, leaves the text alone, and lets an inline prefix win", () =>
      Effect.gen(function*() {
        yield* chat({ messages: [user("2 reasons to rest")], preset: "wild" })
        yield* chat({ messages: [user("deterministic count to 3")], preset: "wild" })
        const bad = yield* chat({ messages: [user("x")], preset: "chaotic" })
        expect(bad.status).toBe(400)
        const [first, second] = yield* requests
        expect(withoutClock(first?.messages.at(-1)?.content ?? "")).toBe("2 reasons to rest")
        expect(first?.sampling).toMatchObject({ temperature: 1.4, topK: 0 })
        expect(withoutClock(second?.messages.at(-1)?.content ?? "")).toBe("count to 3")
        expect(second?.sampling).toMatchObject({ temperature: 0, topK: 1 })
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("a"), ScriptedChatModel.reply("b")]))))

    it.live("POST /v1/preset changes the default preset of later requests", () =>
      Effect.gen(function*() {
        const switched = yield* send("POST", "/v1/preset", { json: { preset: "deterministic" } })
        expect(switched.status).toBe(200)
        yield* chat({ messages: [user("a")] })
        expect((yield* requests)[0]?.sampling).toMatchObject({ temperature: 0, topK: 1 })
        const bad = yield* send("POST", "/v1/preset", { json: { preset: "chaotic" } })
        expect(bad.status).toBe(400)
        expect(field(json(bad), "error", "message")).toContain("deterministic, precise, balanced, creative, wild")
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("a")]))))

    it.live("passes max_tokens and stop to the model", () =>
      Effect.gen(function*() {
        yield* chat({ messages: [user("a")], tools: [{ type: "function", function: { name: "f" } }], max_tokens: 12, stop: "END" })
        const [request] = yield* requests
        expect(request?.maxTokens).toBe(12)
        expect(request?.stop).toEqual(["END"])
      }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("a")]))))
  })
})
