/**
 * Anthropic's Messages protocol against `easyai serve`'s app on a real
 * socket, driven by the official `@anthropic-ai/sdk`: plain and streamed
 * answers, client tools with every tool_choice, tool results going back,
 * errors in Anthropic's shape, the `x-api-key` header, and count_tokens on
 * a real model.
 */
import Anthropic from "@anthropic-ai/sdk"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { LocalChatModel, type ServerLive } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { engineConfig, testModels } from "../../support/models.js"
import { baseUrl, scriptedRequests, scriptedServer, served } from "../../support/server.js"
import { echo } from "../../support/tools.js"

const scripted = (turns: ReadonlyArray<ScriptedChatModel.Turn>, options: Partial<ServerLive.Options<never>> = {}) =>
  scriptedServer(turns, { session: { withDefaultTools: false, tools: [echo] }, ...options })

/** One SDK call; interrupting the fiber aborts it. The SDK's rejection is the failure, as is. */
const call = <A>(run: (client: Anthropic, signal: AbortSignal) => Promise<A>, apiKey = "not-checked") =>
  Effect.flatMap(baseUrl, (base) => {
    const client = new Anthropic({ baseURL: base, apiKey, maxRetries: 0 })
    return Effect.tryPromise({ try: (signal) => run(client, signal), catch: (error) => error })
  })

const weatherTool = {
  name: "get_weather",
  description: "The weather in a city.",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] }
}

describe("the Anthropic SDK as a peer", () => {
  it.live("messages.create: a text answer, end_turn, usage, under any model name", () =>
    Effect.gen(function*() {
      const message = yield* call((client, signal) =>
        client.messages.create({ model: "claude-sonnet-4-5", max_tokens: 64, system: "Be brief.", messages: [{ role: "user", content: "hi" }] }, { signal })
      )
      expect(message.type).toBe("message")
      expect(message.role).toBe("assistant")
      expect(message.content).toEqual([{ type: "text", text: "Hello there." }])
      expect(message.stop_reason).toBe("end_turn")
      expect(message.usage).toMatchObject({ input_tokens: 9, output_tokens: 3 })
      const [seen] = yield* scriptedRequests
      expect(seen?.messages[0]?.content).toContain("Be brief.")
      expect(seen?.maxTokens).toBe(64)
    }).pipe(Effect.provide(scripted([[...ScriptedChatModel.reply("Hello there."), ScriptedChatModel.usage(9, 3)]]))))

  it.live("messages.stream: the SDK assembles the streamed text, stop reason and usage", () =>
    Effect.gen(function*() {
      const { final, texts } = yield* call(async (client, signal) => {
        const stream = client.messages.stream({ model: "easyai", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }, { signal })
        const texts: Array<string> = []
        stream.on("text", (text) => texts.push(text))
        return { final: await stream.finalMessage(), texts }
      })
      expect(texts.join("")).toBe("Hello there.")
      expect(final.content).toMatchObject([{ type: "text", text: "Hello there." }])
      expect(final.stop_reason).toBe("end_turn")
      expect(final.usage.output_tokens).toBe(3)
    }).pipe(Effect.provide(scripted([[...ScriptedChatModel.reply("Hello there."), ScriptedChatModel.usage(9, 3)]]))))

  it.live("client tools: a forced tool_use goes back with its input, and the tool_result comes in for the answer", () =>
    Effect.gen(function*() {
      const first = yield* call((client, signal) =>
        client.messages.create({
          model: "easyai",
          max_tokens: 64,
          tools: [weatherTool],
          tool_choice: { type: "tool", name: "get_weather" },
          messages: [{ role: "user", content: "Weather in Lisbon?" }]
        }, { signal })
      )
      expect(first.stop_reason).toBe("tool_use")
      const use = first.content.find((block) => block.type === "tool_use")
      if (use?.type !== "tool_use") return expect.fail("no tool_use block")
      expect(use).toMatchObject({ name: "get_weather", input: { city: "Lisbon" } })
      const second = yield* call((client, signal) =>
        client.messages.create({
          model: "easyai",
          max_tokens: 64,
          tools: [weatherTool],
          messages: [
            { role: "user", content: "Weather in Lisbon?" },
            { role: "assistant", content: first.content },
            { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "sunny, 21 C" }] }
          ]
        }, { signal })
      )
      expect(second.content).toEqual([{ type: "text", text: "Sunny in Lisbon." }])
      const [asked, answered] = yield* scriptedRequests
      expect(asked?.toolChoice).toEqual({ name: "get_weather" })
      expect(asked?.tools.map((tool) => tool.name)).toEqual(["get_weather"])
      const result = answered?.messages.at(-1)
      expect(result?._tag === "ToolMessage" ? [result.name, result.content, result.toolCallId] : result?._tag)
        .toEqual(["get_weather", "sunny, 21 C", use.id])
    }).pipe(Effect.provide(scripted([
      ScriptedChatModel.toolCall("get_weather", { city: "Lisbon" }),
      ScriptedChatModel.reply("Sunny in Lisbon.")
    ]))))

  it.live("tool_choice any and none reach the model as required and none; a streamed tool_use arrives whole", () =>
    Effect.gen(function*() {
      const streamed = yield* call((client, signal) =>
        client.messages.stream({
          model: "easyai",
          max_tokens: 64,
          tools: [weatherTool],
          tool_choice: { type: "any" },
          messages: [{ role: "user", content: "Weather?" }]
        }, { signal }).finalMessage()
      )
      expect(streamed.content).toMatchObject([{ type: "tool_use", name: "get_weather", input: { city: "Oslo" } }])
      expect(streamed.stop_reason).toBe("tool_use")
      yield* call((client, signal) =>
        client.messages.create({ model: "easyai", max_tokens: 8, tools: [weatherTool], tool_choice: { type: "none" }, messages: [{ role: "user", content: "x" }] }, { signal })
      )
      const [any, none] = yield* scriptedRequests
      expect(any?.toolChoice).toBe("required")
      expect(none?.toolChoice).toBe("none")
    }).pipe(Effect.provide(scripted([ScriptedChatModel.toolCall("get_weather", { city: "Oslo" }), ScriptedChatModel.reply("ok")]))))

  it.live("a bad request is a BadRequestError in Anthropic's shape; the server keeps serving", () =>
    Effect.gen(function*() {
      const noLimit = yield* Effect.flip(call((client, signal) =>
        // Cast: the SDK's types require max_tokens; the server must refuse a request without it.
        client.messages.create({ model: "easyai", messages: [{ role: "user", content: "x" }] } as unknown as Anthropic.MessageCreateParamsNonStreaming, { signal })
      ))
      if (!(noLimit instanceof Anthropic.BadRequestError)) return expect.fail(`expected BadRequestError, got ${String(noLimit)}`)
      expect(noLimit.error).toMatchObject({ type: "error", error: { type: "invalid_request_error" } })
      expect(noLimit.message).toContain("max_tokens")
      const orphan = yield* Effect.flip(call((client, signal) =>
        client.messages.create({
          model: "easyai",
          max_tokens: 8,
          messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "?" }] }]
        }, { signal })
      ))
      expect(orphan instanceof Anthropic.BadRequestError && orphan.message).toContain("no earlier tool_use")
      const image = yield* Effect.flip(call((client, signal) =>
        client.messages.create({
          model: "easyai",
          max_tokens: 8,
          messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }]
        }, { signal })
      ))
      if (!(image instanceof Anthropic.BadRequestError)) return expect.fail(`expected BadRequestError, got ${String(image)}`)
      expect(image.error).toMatchObject({ error: { message: `messages[0].content[0]: only text, tool_use and tool_result blocks are supported (got "image")` } })
      const fine = yield* call((client, signal) => client.messages.create({ model: "easyai", max_tokens: 8, messages: [{ role: "user", content: "x" }] }, { signal }))
      expect(fine.content).toEqual([{ type: "text", text: "still here" }])
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("still here")]))))

  it.live("the key comes as x-api-key, as Anthropic's clients send it; a wrong one is an AuthenticationError", () =>
    Effect.gen(function*() {
      const accepted = yield* call((client, signal) => client.messages.create({ model: "easyai", max_tokens: 8, messages: [{ role: "user", content: "x" }] }, { signal }), "k")
      expect(accepted.content).toEqual([{ type: "text", text: "Welcome." }])
      const refused = yield* Effect.flip(call((client, signal) => client.messages.create({ model: "easyai", max_tokens: 8, messages: [{ role: "user", content: "x" }] }, { signal }), "wrong"))
      expect(refused instanceof Anthropic.AuthenticationError).toBe(true)
      expect(yield* scriptedRequests).toHaveLength(1)
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("Welcome.")], { server: { apiKey: Redacted.make("k") } }))))

  it.live("count_tokens needs a local model: on a scripted one it is a NotFoundError", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(call((client, signal) => client.messages.countTokens({ model: "easyai", messages: [{ role: "user", content: "x" }] }, { signal })))
      expect(missing instanceof Anthropic.NotFoundError).toBe(true)
    }).pipe(Effect.provide(scripted([]))))
})

const model = testModels.find((candidate) => candidate.name.startsWith("stories")) ?? testModels[0]
if (model === undefined) throw new Error("no test model")

describe(`the Anthropic SDK on ${model.name}`, () => {
  layer(served({ model: LocalChatModel.layerFrom(engineConfig(model)), session: { withDefaultTools: false } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("count_tokens counts the rendered prompt, more for more text; a streamed answer ends with max_tokens", () =>
      Effect.gen(function*() {
        const short = yield* call((client, signal) => client.messages.countTokens({ model: "m", messages: [{ role: "user", content: "Once upon a time" }] }, { signal }))
        const long = yield* call((client, signal) =>
          client.messages.countTokens({ model: "m", system: "You tell stories.", messages: [{ role: "user", content: "Once upon a time there was a dog." }] }, { signal })
        )
        expect(short.input_tokens).toBeGreaterThan(4)
        expect(long.input_tokens).toBeGreaterThan(short.input_tokens)
        const final = yield* call((client, signal) =>
          client.messages.stream({ model: "m", max_tokens: 8, temperature: 0, messages: [{ role: "user", content: "Once upon a time" }] }, { signal }).finalMessage()
        )
        expect(final.stop_reason).toBe("max_tokens")
        expect(final.usage.output_tokens).toBe(8)
        expect(final.content[0]?.type === "text" && final.content[0].text.length).toBeGreaterThan(0)
      }))
  })
})
