/**
 * `POST /v1/completions` on a real model over a real socket: the official
 * OpenAI SDK and the AI SDK's completion model, every response and SSE chunk
 * decoded with the domain's `TextCompletion` Schema, and the requests the
 * server refuses.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { describe, expect, it, layer } from "@effect/vitest"
import { generateText, streamText } from "ai"
import { Effect, Schema } from "effect"
import { LocalChatModel } from "easyai"
import OpenAI from "openai"
import { TextCompletion } from "../../../src/domain/openai/Completions.js"
import { engineConfig, reachableStop, testModels } from "../../support/models.js"
import { startServeSmall } from "../../support/programProcess.js"
import { baseUrl, field, json, scriptedServer, send, served, sseFrames } from "../../support/server.js"

const model = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]
if (model === undefined) throw new Error("no test model")

const decode = Schema.decodeUnknownSync(Schema.parseJson(TextCompletion))

/** One call of the official SDK; its rejection is the failure, as is. */
const sdkCall = <A>(run: (client: OpenAI, signal: AbortSignal) => Promise<A>) =>
  Effect.flatMap(baseUrl, (base) => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "not-checked", maxRetries: 0 })
    return Effect.tryPromise({ try: (signal) => run(client, signal), catch: (error) => error })
  })

const prompt = "Once upon a time, there was a little girl named"
/** Greedy and short, so the same prompt gives the same text every way it is asked. */
const greedy = { model: "davinci-002", prompt, temperature: 0, max_tokens: 12, seed: 1 }

describe(`POST /v1/completions on ${model.name}`, () => {
  const stack = served({ model: LocalChatModel.layerFrom(engineConfig(model)), session: { withDefaultTools: false } })

  layer(stack, { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("the OpenAI SDK: a whole completion and a streamed one carry the same continuation, with usage", () =>
      Effect.gen(function*() {
        const whole = yield* sdkCall((client, signal) => client.completions.create(greedy, { signal }))
        expect(whole.object).toBe("text_completion")
        expect(whole.id).toMatch(/^cmpl-/)
        const text = whole.choices[0]?.text ?? ""
        expect(text.length).toBeGreaterThan(0)
        expect(whole.choices[0]?.finish_reason).toBe("length")
        expect(whole.usage?.completion_tokens).toBe(12)
        expect(whole.usage?.prompt_tokens).toBeGreaterThan(5)

        const chunks = yield* sdkCall(async (client, signal) => {
          const stream = await client.completions.create(
            { ...greedy, stream: true, stream_options: { include_usage: true } },
            { signal }
          )
          const all: Array<OpenAI.Completions.Completion> = []
          for await (const chunk of stream) all.push(chunk)
          return all
        })
        expect(chunks.map((chunk) => chunk.choices[0]?.text ?? "").join("")).toBe(text)
        expect(chunks.filter((chunk) => chunk.choices[0]?.finish_reason === "length")).toHaveLength(1)
        expect(chunks.at(-1)?.usage?.completion_tokens).toBe(12)
      }))

    it.effect("every body and every SSE chunk decodes with the domain's TextCompletion; echo and stop are honoured", () =>
      Effect.gen(function*() {
        const whole = yield* send("POST", "/v1/completions", { json: { ...greedy, prompt: [prompt], echo: true } })
        expect(whole.status).toBe(200)
        const decoded = decode(whole.text)
        expect(decoded.choices[0]?.text.startsWith(prompt)).toBe(true)

        const streamed = yield* send("POST", "/v1/completions", { json: { ...greedy, stream: true, echo: true } })
        expect(streamed.headers["content-type"]).toContain("text/event-stream")
        const frames = sseFrames(streamed.text)
        expect(frames.at(-1)?.data).toBe("[DONE]")
        const chunks = frames.slice(0, -1).map((frame) => decode(frame.data))
        expect(chunks.map((chunk) => chunk.choices[0]?.text ?? "").join("")).toBe(decoded.choices[0]?.text)

        // A piece of the continuation as a stop sequence: the text ends before it.
        const continuation = decoded.choices[0]?.text.slice(prompt.length) ?? ""
        const word = reachableStop(continuation) ?? ""
        expect(word).not.toBe("")
        const stopped = decode((yield* send("POST", "/v1/completions", { json: { ...greedy, stop: [word] } })).text)
        expect(stopped.choices[0]?.text).not.toContain(word)
        expect(stopped.choices[0]?.finish_reason).toBe("stop")
      }))

    it.effect("the AI SDK's completionModel: generateText and streamText", () =>
      Effect.gen(function*() {
        const base = yield* baseUrl
        const provider = createOpenAICompatible({ name: "easyai", baseURL: `${base}/v1`, apiKey: "not-checked", includeUsage: true })
        const result = yield* Effect.tryPromise({
          try: async (abortSignal) => {
            const options = { model: provider.completionModel("any"), prompt, temperature: 0, maxOutputTokens: 12, seed: 1, maxRetries: 0, abortSignal }
            const whole = await generateText(options)
            const stream = streamText(options)
            let streamed = ""
            for await (const delta of stream.textStream) streamed += delta
            return { whole, streamed, usage: await stream.usage }
          },
          catch: (error) => error
        })
        expect(result.whole.text.length).toBeGreaterThan(0)
        expect(result.whole.finishReason).toBe("length")
        expect(result.streamed).toBe(result.whole.text)
        // The usage the server reported, both ways. It is the budget on a story model; on the generated model's bytes
        // node-llama-cpp can take one token more to finish a character, and the count says so rather than hide it.
        expect(result.usage.outputTokens).toBe(result.whole.usage.outputTokens)
        expect(result.usage.outputTokens).toBeGreaterThanOrEqual(12)
        expect(result.usage.outputTokens).toBeLessThanOrEqual(13)
      }))

    it.effect("what one local completion cannot give is a 400 naming the field, and the server still serves", () =>
      Effect.gen(function*() {
        const refused = [
          [{ prompt, n: 2 }, "n"],
          [{ prompt, best_of: 3 }, "best_of"],
          [{ prompt, logprobs: 5 }, "logprobs"],
          [{ prompt, suffix: "The end." }, "suffix"],
          [{ prompt: [prompt, prompt] }, "prompt"],
          [{ prompt: [] }, "prompt"],
          [{ prompt, temperature: 9 }, "temperature"],
          [{ prompt, max_tokens: 0 }, "max_tokens"],
          [{}, "prompt"]
        ] as const
        for (const [body, param] of refused) {
          const reply = yield* send("POST", "/v1/completions", { json: body })
          expect([param, reply.status]).toEqual([param, 400])
          expect(field(json(reply), "error", "param")).toBe(param)
        }
        const tooLong = yield* send("POST", "/v1/completions", { json: { prompt: "the dog ran ".repeat(3000) } })
        expect(tooLong.status).toBe(400)
        expect(field(json(tooLong), "error", "code")).toBe("context_length_exceeded")
        const empty = yield* send("POST", "/v1/completions", { json: { prompt: "", max_tokens: 3 } })
        expect([empty.status, field(json(empty), "error", "message")]).toEqual([200, undefined])
        const garbage = yield* send("POST", "/v1/completions", { body: "{not json" })
        expect(garbage.status).toBe(400)
        expect((yield* send("POST", "/v1/completions", { json: { prompt, max_tokens: 2 } })).status).toBe(200)
      }))
  })
})

describe("POST /v1/completions on a model that is not a local engine", () => {
  layer(scriptedServer([]), { excludeTestServices: true })((it) => {
    it.effect("answers 501 in OpenAI's shape, naming the route that does work", () =>
      Effect.gen(function*() {
        const reply = yield* send("POST", "/v1/completions", { json: { prompt: "Hi" } })
        expect(reply.status).toBe(501)
        expect(field(json(reply), "error", "code")).toBe("completions_not_supported")
        expect(String(field(json(reply), "error", "message"))).toContain("/v1/chat/completions")
      }))
  })
})

describe("POST /v1/completions on `easyai serve`", () => {
  it.live("the program's own engine answers the OpenAI SDK, whole and streamed, behind its API key", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* startServeSmall("--no-tools", "--api-key", "k")
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "k", maxRetries: 0 })
      const result = yield* Effect.tryPromise({
        try: async (signal) => {
          const whole = await client.completions.create({ model: "x", prompt, max_tokens: 6, temperature: 0 }, { signal })
          const stream = await client.completions.create({ model: "x", prompt, max_tokens: 6, temperature: 0, stream: true }, { signal })
          let streamed = ""
          for await (const chunk of stream) streamed += chunk.choices[0]?.text ?? ""
          return { whole: whole.choices[0]?.text ?? "", streamed, usage: whole.usage?.completion_tokens }
        },
        catch: (error) => error
      })
      expect(result.whole.length).toBeGreaterThan(0)
      expect(result.streamed).toBe(result.whole)
      expect(result.usage).toBe(6)
    })), 120_000)
})
