/**
 * Ollama's chat and generate protocol against `easyai serve`'s app on a real
 * socket, driven by the official `ollama` npm client: NDJSON streaming and
 * whole answers, options, client tools without ids, format, and errors in
 * Ollama's shape; and a real model answering through `/api/generate`.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { LocalChatModel } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { Ollama } from "ollama"
import { engineConfig, testModels } from "../../support/models.js"
import { baseUrl, scriptedRequests, scriptedServer, send, served } from "../../support/server.js"

/** One client call; the client's rejection is the failure, as is. */
const call = <A>(run: (client: Ollama) => Promise<A>) =>
  Effect.flatMap(baseUrl, (host) => Effect.tryPromise({ try: () => run(new Ollama({ host })), catch: (error) => error }))

const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
}

describe("the ollama client as a peer", () => {
  it.live("chat streams NDJSON pieces and a done line with the counts; options become the request's limits", () =>
    Effect.gen(function*() {
      const pieces = yield* call(async (client) => {
        const stream = await client.chat({
          model: "llama3.2",
          messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }],
          stream: true,
          options: { temperature: 0.3, num_predict: 16, stop: ["\n\n"] }
        })
        const seen: Array<{ readonly content: string; readonly done: boolean; readonly reason: string | undefined; readonly evalCount: number | undefined }> = []
        for await (const part of stream) {
          seen.push({ content: part.message.content, done: part.done, reason: part.done ? part.done_reason : undefined, evalCount: part.done ? part.eval_count : undefined })
        }
        return seen
      })
      expect(pieces.map((part) => part.content).join("")).toBe("Hello there.")
      expect(pieces.at(-1)).toMatchObject({ done: true, reason: "stop", evalCount: 3 })
      expect(pieces.slice(0, -1).every((part) => !part.done)).toBe(true)
      const [seen] = yield* scriptedRequests
      expect(seen?.messages[0]?.content).toContain("Be brief.")
      expect(seen?.maxTokens).toBe(16)
      expect(seen?.stop).toEqual(["\n\n"])
      expect(seen?.sampling?.temperature).toBe(0.3)
    }).pipe(Effect.provide(scriptedServer([[...ScriptedChatModel.reply("Hello there."), ScriptedChatModel.usage(9, 3)]]))))

  it.live("chat with tools: the call comes back without an id, and the tool message answers it", () =>
    Effect.gen(function*() {
      const first = yield* call((client) =>
        client.chat({ model: "m", stream: false, tools: [weatherTool], messages: [{ role: "user", content: "Weather in Lisbon?" }] })
      )
      expect(first.message.tool_calls).toEqual([{ function: { name: "get_weather", arguments: { city: "Lisbon" } } }])
      const second = yield* call((client) =>
        client.chat({
          model: "m",
          stream: false,
          tools: [weatherTool],
          messages: [
            { role: "user", content: "Weather in Lisbon?" },
            first.message,
            { role: "tool", content: "sunny, 21 C", tool_name: "get_weather" }
          ]
        })
      )
      expect(second.message.content).toBe("Sunny in Lisbon.")
      const [, answered] = yield* scriptedRequests
      const calls = answered?.messages.flatMap((message) => (message._tag === "AssistantMessage" ? message.toolCalls : []))
      const result = answered?.messages.at(-1)
      expect(result?._tag === "ToolMessage" ? [result.name, result.content, result.toolCallId] : result?._tag)
        .toEqual(["get_weather", "sunny, 21 C", calls?.[0]?.id])
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.toolCall("get_weather", { city: "Lisbon" }),
      ScriptedChatModel.reply("Sunny in Lisbon.")
    ]))))

  it.live("format json and a schema reach the model as the answer's shape; generate answers a prompt", () =>
    Effect.gen(function*() {
      const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
      yield* call((client) => client.chat({ model: "m", stream: false, format: "json", messages: [{ role: "user", content: "a" }] }))
      yield* call((client) => client.chat({ model: "m", stream: false, format: schema, messages: [{ role: "user", content: "b" }] }))
      const generated = yield* call((client) => client.generate({ model: "m", prompt: "Once upon a time", system: "Tell stories.", stream: false }))
      expect(generated.response).toBe("there was a dog.")
      expect(generated.done).toBe(true)
      const [json, shaped, prompt] = yield* scriptedRequests
      expect(json?.responseFormat).toEqual({ type: "json_object" })
      expect(shaped?.responseFormat).toEqual({ type: "json_schema", name: "format", schema })
      expect(prompt?.messages.map((message) => message._tag)).toEqual(["SystemMessage", "UserMessage"])
      expect(prompt?.toolChoice).toBe("none")
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.reply("{}"),
      ScriptedChatModel.reply(`{"ok":true}`),
      ScriptedChatModel.reply("there was a dog.")
    ]))))

  it.live("errors are Ollama's {error}: a client's ResponseError with the message; a tool message answering nothing is refused", () =>
    Effect.gen(function*() {
      const empty = yield* send("POST", "/api/chat", { json: { model: "m", messages: [] } })
      expect(empty.status).toBe(400)
      expect(JSON.parse(empty.text)).toEqual({ error: expect.stringContaining("messages") })
      const orphan = yield* Effect.flip(call((client) => client.chat({ model: "m", stream: false, messages: [{ role: "tool", content: "x" }] })))
      expect(String(orphan)).toContain("answers no earlier tool call")
      const image = yield* send("POST", "/api/chat", { json: { model: "m", stream: false, messages: [{ role: "user", content: "x", images: ["AAAA"] }] } })
      expect(image.status).toBe(400)
      expect(JSON.parse(image.text)).toEqual({ error: "messages[0]: images are not supported" })
      const badOption = yield* send("POST", "/api/generate", { json: { model: "m", prompt: "x", options: { temperature: 9 } } })
      expect(badOption.status).toBe(400)
    }).pipe(Effect.provide(scriptedServer([]))))
})

const model = testModels.find((candidate) => candidate.name.startsWith("stories")) ?? testModels[0]
if (model === undefined) throw new Error("no test model")

describe(`the ollama client on ${model.name}`, () => {
  layer(served({ model: LocalChatModel.layerFrom(engineConfig(model)), session: { withDefaultTools: false } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("generate streams a story and ends with length at num_predict", () =>
      Effect.gen(function*() {
        const parts = yield* call(async (client) => {
          const stream = await client.generate({ model: "any", prompt: "Once upon a time", stream: true, options: { num_predict: 8, temperature: 0 } })
          const all: Array<{ readonly response: string; readonly done: boolean; readonly reason: string | undefined; readonly count: number | undefined }> = []
          for await (const part of stream) all.push({ response: part.response ?? "", done: part.done, reason: part.done ? part.done_reason : undefined, count: part.done ? part.eval_count : undefined })
          return all
        })
        expect(parts.map((part) => part.response).join("").length).toBeGreaterThan(0)
        expect(parts.at(-1)).toMatchObject({ done: true, reason: "length", count: 8 })
      }))
  })
})
