/**
 * The Vercel AI SDK as a peer: `ai`'s generateText, streamText,
 * generateObject, embed and embedMany through `@ai-sdk/openai-compatible`
 * pointed at the real listener over loopback. Scripted where the answer must
 * be known; the real GGUF where the engine's grammar and embeddings are the
 * point.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { describe, expect, it, layer } from "@effect/vitest"
import { embed, embedMany, generateObject, generateText, streamText, tool } from "ai"
import { Effect } from "effect"
import { LocalChatModel } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { z } from "zod"
import { engineConfig, testModels } from "../../support/models.js"
import { baseUrl, field, scriptedRequests, scriptedServer, served } from "../../support/server.js"

/** The provider on the server under test; structured outputs go as `json_schema`, as the server supports them. */
const provider = Effect.map(baseUrl, (base) =>
  createOpenAICompatible({
    name: "easyai",
    baseURL: `${base}/v1`,
    apiKey: "not-checked",
    includeUsage: true,
    supportsStructuredOutputs: true
  }))

/** One SDK call; interrupting the fiber aborts it. */
const call = <A>(run: (client: ReturnType<typeof createOpenAICompatible>, signal: AbortSignal) => Promise<A>) =>
  Effect.flatMap(provider, (client) => Effect.tryPromise({ try: (signal) => run(client, signal), catch: (error) => error }))

/** A client tool without `execute`: the SDK hands its call back instead of running it. */
const getWeather = tool({
  description: "The weather in a city.",
  inputSchema: z.object({ city: z.string() }),
  outputSchema: z.string()
})

describe("the AI SDK on a scripted server", () => {
  it.live("generateText: the text, finish reason and usage", () =>
    Effect.gen(function*() {
      const result = yield* call((client, abortSignal) =>
        generateText({ model: client.chatModel("any-name"), prompt: "hi", maxRetries: 0, abortSignal })
      )
      expect(result.text).toBe("Hello there.")
      expect(result.finishReason).toBe("stop")
      expect(result.usage.inputTokens).toBe(7)
      expect(result.usage.outputTokens).toBe(3)
    }).pipe(Effect.provide(scriptedServer([[...ScriptedChatModel.text("Hello", " there."), ScriptedChatModel.usage(7, 3)]]))))

  it.live("streamText: the deltas join into the reply, and usage arrives at the end", () =>
    Effect.gen(function*() {
      const parts = yield* call(async (client, abortSignal) => {
        const result = streamText({ model: client.chatModel("easyai"), prompt: "hi", maxRetries: 0, abortSignal })
        const deltas: Array<string> = []
        for await (const delta of result.textStream) deltas.push(delta)
        return { deltas, usage: await result.usage, finishReason: await result.finishReason }
      })
      expect(parts.deltas.join("")).toBe("Once upon a time.")
      expect(parts.deltas.length).toBeGreaterThan(1)
      expect(parts.finishReason).toBe("stop")
      expect([parts.usage.inputTokens, parts.usage.outputTokens]).toEqual([5, 4])
    }).pipe(Effect.provide(scriptedServer([[...ScriptedChatModel.reply("Once upon a time."), ScriptedChatModel.usage(5, 4)]]))))

  it.live("a forced client tool: the tool_choice reaches the model and the call comes back unexecuted", () =>
    Effect.gen(function*() {
      const result = yield* call((client, abortSignal) =>
        generateText({
          model: client.chatModel("easyai"),
          prompt: "Weather in Lisbon?",
          tools: { get_weather: getWeather },
          toolChoice: { type: "tool", toolName: "get_weather" },
          maxRetries: 0,
          abortSignal
        })
      )
      expect(result.finishReason).toBe("tool-calls")
      expect(result.toolCalls.map((toolCall) => [toolCall.toolName, toolCall.input])).toEqual([
        ["get_weather", { city: "Lisbon" }]
      ])
      const [request] = yield* scriptedRequests
      expect(request?.toolChoice).toEqual({ name: "get_weather" })
      expect(request?.tools.map((spec) => spec.name)).toEqual(["get_weather"])
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.toolCall("get_weather", { city: "Lisbon" }, { id: "call_1" })]))))

  it.live("a forced client tool, streamed: the call assembles from the deltas", () =>
    Effect.gen(function*() {
      const calls = yield* call(async (client, abortSignal) => {
        const result = streamText({
          model: client.chatModel("easyai"),
          prompt: "Weather in Rome?",
          tools: { get_weather: getWeather },
          toolChoice: { type: "tool", toolName: "get_weather" },
          maxRetries: 0,
          abortSignal
        })
        return { calls: await result.toolCalls, finishReason: await result.finishReason }
      })
      expect(calls.finishReason).toBe("tool-calls")
      expect(calls.calls.map((toolCall) => [toolCall.toolName, toolCall.input])).toEqual([["get_weather", { city: "Rome" }]])
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.toolCall("get_weather", { city: "Rome" }, { id: "call_r" })]))))
})

const model = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]
if (model === undefined) throw new Error("no test model")

describe(`the AI SDK on ${model.name}`, () => {
  const stack = served({ model: LocalChatModel.layerFrom(engineConfig(model)), session: { withDefaultTools: false } })

  layer(stack, { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("generateObject with a zod schema: the engine's grammar makes an object the schema accepts", () =>
      Effect.gen(function*() {
        const mood = z.object({ mood: z.enum(["happy", "sad"]), tired: z.boolean() })
        const result = yield* call((client, abortSignal) =>
          generateObject({ model: client.chatModel("easyai"), schema: mood, prompt: "How do you feel?", maxRetries: 0, abortSignal })
        )
        expect(mood.safeParse(result.object).success).toBe(true)
      }))

    it.effect("a forced client tool: the grammar makes the model write a call with the tool's arguments", () =>
      Effect.gen(function*() {
        const result = yield* call((client, abortSignal) =>
          generateText({
            model: client.chatModel("easyai"),
            prompt: "Weather?",
            tools: { get_weather: getWeather },
            toolChoice: { type: "tool", toolName: "get_weather" },
            maxOutputTokens: 64,
            maxRetries: 0,
            abortSignal
          })
        )
        expect(result.toolCalls).toHaveLength(1)
        const [toolCall] = result.toolCalls
        expect(toolCall?.toolName).toBe("get_weather")
        expect(typeof field(toolCall?.input, "city")).toBe("string")
      }))

    it.effect("embed and embedMany: one vector per value, the same vector for the same text", () =>
      Effect.gen(function*() {
        const vectors = yield* call(async (client, abortSignal) => {
          const embedding = client.embeddingModel("text-embedding-3-small")
          const one = await embed({ model: embedding, value: "The dog ran.", maxRetries: 0, abortSignal })
          const many = await embedMany({ model: embedding, values: ["The dog ran.", "Lily ate soup."], maxRetries: 0, abortSignal })
          return { one: one.embedding, many: many.embeddings, tokens: many.usage.tokens }
        })
        expect(vectors.one.length).toBeGreaterThan(0)
        expect(vectors.many).toHaveLength(2)
        expect(vectors.many[0]).toEqual(vectors.one)
        expect(vectors.many[1]).not.toEqual(vectors.one)
        expect(vectors.tokens).toBeGreaterThan(0)
      }))
  })
})
