/**
 * Every response the server writes decodes with the domain Schemas the
 * remote client reads it with — strictly: a field the server writes and the
 * Schemas do not model fails the test, so the two sides cannot drift apart.
 * Chat completions whole and streamed (with and without easyai's events,
 * with tool calls, failures before and after the stream began), models,
 * embeddings, completions and error bodies, over a real socket.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AssistantMessage, LocalChatModel, ModelError, SystemMessage, ToolCall, ToolMessage, UserMessage } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { ChatCompletionBody, Completion, CompletionChunk, ErrorBody, ModelList } from "../../../src/domain/openai/ChatCompletions.js"
import { TextCompletion } from "../../../src/domain/openai/Completions.js"
import { EmbeddingList } from "../../../src/domain/openai/Embeddings.js"
import { requestBody } from "../../../src/layers/client/wire.js"
import { engineConfig, testModels } from "../../support/models.js"
import { chat, scriptedServer, send, served, sseFrames } from "../../support/server.js"
import { echo, weather } from "../../support/tools.js"

/** Decodes a JSON text with `schema`, refusing any field it does not model. */
const strict = <A, I>(schema: Schema.Schema<A, I>) => (text: string): A =>
  Schema.decodeUnknownSync(Schema.parseJson(schema), { onExcessProperty: "error" })(text)

const user = { role: "user", content: "Weather in Lisbon?" }
const eventsOn = { include_usage: true, easyai_events: true }

/** The plain `data:` chunks of a stream decode strictly; easyai's named events decode as the chunks they also are. */
const decodeStream = (body: string) => {
  const frames = sseFrames(body)
  expect(frames.at(-1)?.data).toBe("[DONE]")
  const chunks = frames.slice(0, -1).map((frame) =>
    frame.event === undefined ? strict(CompletionChunk)(frame.data) : Schema.decodeUnknownSync(Schema.parseJson(CompletionChunk))(frame.data)
  )
  return { frames, chunks }
}

describe("what the client sends, read with the server's Schema", () => {
  it("a conversation with tool calls and results, tools, a forced choice, shapers and a response format decodes as is", () => {
    const call = new ToolCall({ id: "call_1", name: "get_weather", arguments: "{\"city\":\"Lisbon\"}" })
    const body = requestBody({
      messages: [
        new SystemMessage({ content: "Be brief." }),
        new UserMessage({ content: "Weather?" }),
        new AssistantMessage({ content: "", toolCalls: [call] }),
        new ToolMessage({ toolCallId: "call_1", name: "get_weather", content: "sunny" })
      ],
      tools: [{ name: "get_weather", description: "The weather.", shortDescription: "The weather.", parameters: { type: "object", properties: { city: { type: "string" } } } }],
      toolChoice: { name: "get_weather" },
      sampling: { temperature: 0.2, topP: 0.9, topK: 40, minP: 0.05 },
      maxTokens: 64,
      stop: ["END"],
      responseFormat: { type: "json_object" }
    }, { baseUrl: "http://127.0.0.1:1", model: "m", seed: 7 })
    const decoded = Schema.decodeUnknownSync(ChatCompletionBody)(body)
    expect(decoded.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"])
    expect(decoded.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } })
    expect([decoded.temperature, decoded.top_p, decoded.max_tokens, decoded.stop]).toEqual([0.2, 0.9, 64, ["END"]])
    expect(decoded.stream_options?.easyai_events).toBe(true)
  })
})

describe("what the server writes, read with the client's Schemas", () => {
  it.live("a whole chat completion with client tool calls, and one with text", () =>
    Effect.gen(function*() {
      const calls = strict(Completion)((yield* chat({ messages: [user], tools: [weather] })).text)
      expect(calls.choices[0]?.message?.tool_calls?.map((call) => call.function.name)).toEqual(["get_weather"])
      const text = strict(Completion)((yield* chat({ messages: [user] })).text)
      expect(text.choices[0]?.message?.content).toBe("It is sunny.")
      expect(text.usage?.completion_tokens).toBe(3)
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.toolCall("get_weather", { city: "Lisbon" }, { id: "call_1" }),
      [...ScriptedChatModel.reply("It is sunny."), ScriptedChatModel.usage(9, 3)]
    ]))))

  it.live("every chunk of a plain stream and of one with easyai's events, through a server-side tool, with usage", () =>
    Effect.gen(function*() {
      const plain = decodeStream((yield* chat({ messages: [user], stream: true, stream_options: { include_usage: true } })).text)
      expect(plain.chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? "").join("")).toBe("Echoed: hi")
      expect(plain.chunks.at(-1)?.usage?.total_tokens).toBe(12)
      const withEvents = decodeStream((yield* chat({ messages: [user], stream: true, stream_options: eventsOn })).text)
      expect(withEvents.frames.map((frame) => frame.event).filter((name) => name !== undefined)).toContain("easyai.tool_call")
      expect(withEvents.chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? "").join("")).toBe("Echoed: hi")
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.toolCall("echo", { text: "hi" }),
      [...ScriptedChatModel.reply("Echoed: hi"), ScriptedChatModel.usage(9, 3)],
      ScriptedChatModel.toolCall("echo", { text: "hi" }),
      ScriptedChatModel.reply("Echoed: hi")
    ], { session: { withDefaultTools: false, tools: [echo] } }))))

  it.live("streamed client tool calls, and a failure after the stream began as an error chunk", () =>
    Effect.gen(function*() {
      const calls = decodeStream((yield* chat({ messages: [user], tools: [weather], stream: true })).text)
      expect(calls.chunks.flatMap((chunk) => chunk.choices?.[0]?.delta?.tool_calls ?? []).map((call) => call.id)).toEqual(["call_s"])
      const failed = decodeStream((yield* chat({ messages: [user], stream: true })).text)
      expect(failed.chunks.at(-1)?.error).toBeDefined()
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.toolCall("get_weather", { city: "Lisbon" }, { id: "call_s" }),
      [...ScriptedChatModel.text("Half"), ScriptedChatModel.fail(new ModelError({ reason: "Unavailable", detail: "gone" }))]
    ]))))

  it.live("error bodies (a bad request, a failed model, no embeddings, no completions) and the model list", () =>
    Effect.gen(function*() {
      const bodies = [
        yield* chat({ messages: [] }),
        yield* chat({ messages: [user] }),
        yield* send("POST", "/v1/embeddings", { json: { input: "a" } }),
        yield* send("POST", "/v1/completions", { json: { prompt: "a" } })
      ]
      expect(bodies.map((reply) => reply.status)).toEqual([400, 500, 404, 501])
      for (const reply of bodies) expect(strict(ErrorBody)(reply.text).error).toBeDefined()
      const models = strict(ModelList)((yield* send("GET", "/v1/models")).text)
      expect(models.data.map((model) => model.id)).toEqual(["scripted"])
    }).pipe(Effect.provide(scriptedServer([[ScriptedChatModel.fail(new ModelError({ reason: "Unavailable", detail: "down" }))]]))))
})

const model = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]
if (model === undefined) throw new Error("no test model")

describe(`what the server writes on ${model.name}, read with the client's Schemas`, () => {
  const stack = served({ model: LocalChatModel.layerFrom(engineConfig(model)), session: { withDefaultTools: false } })

  layer(stack, { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("embeddings as floats and as base64, completions whole and streamed", () =>
      Effect.gen(function*() {
        for (const encoding_format of ["float", "base64"]) {
          const list = strict(EmbeddingList)((yield* send("POST", "/v1/embeddings", { json: { input: ["a", "b"], encoding_format } })).text)
          expect(list.data).toHaveLength(2)
        }
        const whole = strict(TextCompletion)((yield* send("POST", "/v1/completions", { json: { prompt: "Once", max_tokens: 4 } })).text)
        expect(whole.usage?.completion_tokens).toBeGreaterThan(0)
        const body = (yield* send("POST", "/v1/completions", {
          json: { prompt: "Once", max_tokens: 4, stream: true, stream_options: { include_usage: true } }
        })).text
        const frames = sseFrames(body)
        expect(frames.at(-1)?.data).toBe("[DONE]")
        const chunks = frames.slice(0, -1).map((frame) => strict(TextCompletion)(frame.data))
        expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0)
      }))
  })
})
