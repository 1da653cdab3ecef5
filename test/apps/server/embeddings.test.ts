/**
 * `POST /v1/embeddings` on a real model, through the official OpenAI SDK
 * (which asks for base64 unless told otherwise) and easyai's own remote
 * `Embedder`, over a real socket; and the errors a client can cause.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Embedder, LocalChatModel, RemoteChatModel } from "easyai"
import { Ollama } from "ollama"
import OpenAI from "openai"
import { engineConfig, testModels } from "../../support/models.js"
import { baseUrl, field, json, scriptedServer, send, served } from "../../support/server.js"

const model = testModels.find((candidate) => candidate.name.startsWith("stories")) ?? testModels[0]
if (model === undefined) throw new Error("no test model")

const sdk = Effect.map(baseUrl, (base) => new OpenAI({ baseURL: `${base}/v1`, apiKey: "not-checked", maxRetries: 0 }))

describe(`POST /v1/embeddings on ${model.name}`, () => {
  const stack = served({ model: LocalChatModel.layerFrom(engineConfig(model)), session: { withDefaultTools: false } })

  layer(stack, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("the OpenAI SDK gets one vector per input under any model name, the same as floats or base64", () =>
      Effect.gen(function*() {
        const client = yield* sdk
        const input = ["The dog ran to the park.", "Lily ate soup and bread."]
        // The SDK asks for base64 by default and decodes it.
        const viaBase64 = yield* Effect.promise(() => client.embeddings.create({ model: "text-embedding-3-small", input }))
        const viaFloats = yield* Effect.promise(() => client.embeddings.create({ model: "x", input, encoding_format: "float" }))
        expect(viaBase64.data.map((item) => item.index)).toEqual([0, 1])
        const [first, second] = viaFloats.data.map((item) => item.embedding)
        expect(first?.length).toBeGreaterThan(0)
        expect(second?.length).toBe(first?.length)
        expect(first).not.toEqual(second)
        expect(viaBase64.data.map((item) => item.embedding)).toEqual([first, second])
        expect(viaFloats.usage.prompt_tokens).toBeGreaterThan(0)
        expect(viaFloats.model).toBe(viaBase64.model)
      }))

    it.effect("easyai's remote Embedder reads the same vectors the local one makes", () =>
      Effect.gen(function*() {
        const texts = ["Once upon a time"]
        const local = yield* (yield* Embedder).embed(texts)
        const remote = yield* Effect.provide(
          Effect.flatMap(Embedder, (embedder) => embedder.embed(texts)),
          RemoteChatModel.layerFrom({ baseUrl: yield* baseUrl }).pipe(Layer.orDie)
        )
        expect(remote.vectors).toEqual(local.vectors)
        expect(remote.tokens).toBe(local.tokens)
      }).pipe(Effect.provide(LocalChatModel.layerFrom(engineConfig(model)).pipe(Layer.orDie))))

    it.effect("a text longer than the model can read, an empty list and a wrong field are 400s naming the field", () =>
      Effect.gen(function*() {
        const long = yield* send("POST", "/v1/embeddings", { json: { input: "the dog ran ".repeat(3000) } })
        expect(long.status).toBe(400)
        expect(field(json(long), "error", "param")).toBe("input")
        const empty = yield* send("POST", "/v1/embeddings", { json: { input: [] } })
        expect(empty.status).toBe(400)
        expect(field(json(empty), "error", "param")).toBe("input")
        const tooMany = yield* send("POST", "/v1/embeddings", { json: { input: Array.from({ length: 257 }, () => "a") } })
        expect(tooMany.status).toBe(400)
        expect(field(json(tooMany), "error", "param")).toBe("input")
        const format = yield* send("POST", "/v1/embeddings", { json: { input: "a", encoding_format: "int8" } })
        expect(format.status).toBe(400)
        expect(field(json(format), "error", "param")).toBe("encoding_format")
        // And it still serves.
        expect((yield* send("POST", "/v1/embeddings", { json: { input: "a" } })).status).toBe(200)
      }))

    it.effect("the Ollama client's embed gets the same vectors in Ollama's shape, and its errors as Ollama's", () =>
      Effect.gen(function*() {
        const input = ["The dog ran to the park.", "Lily ate soup and bread."]
        const host = yield* baseUrl
        const viaOllama = yield* Effect.promise(() => new Ollama({ host }).embed({ model: "nomic-embed-text", input }))
        const client = yield* sdk
        const viaOpenAi = (yield* Effect.promise(() => client.embeddings.create({ model: "x", input, encoding_format: "float" }))).data
        expect(viaOllama.model).toBe("nomic-embed-text")
        expect(viaOllama.embeddings).toEqual(viaOpenAi.map((item) => item.embedding))
        expect(viaOllama.prompt_eval_count).toBeGreaterThan(0)
        // One text is one vector too.
        const one = yield* Effect.promise(() => new Ollama({ host }).embed({ model: "m", input: "Once upon a time" }))
        expect(one.embeddings).toHaveLength(1)
        // Hostile input is a 400 in Ollama's `{"error": …}`, which its client raises with the message.
        const tooMany = yield* send("POST", "/api/embed", { json: { model: "m", input: Array.from({ length: 257 }, () => "a") } })
        expect(tooMany.status).toBe(400)
        expect(String(field(json(tooMany), "error"))).toMatch(/^invalid request: input: /)
        const refused = yield* Effect.flip(Effect.tryPromise(() => new Ollama({ host }).embed({ model: "m", input: [] })))
        expect(String(refused.cause)).toMatch(/invalid request: input: /)
      }))
  })
})

describe("POST /v1/embeddings on a model without embeddings", () => {
  layer(scriptedServer([]), { excludeTestServices: true })((it) => {
    it.effect("answers 404 in OpenAI's shape", () =>
      Effect.gen(function*() {
        const reply = yield* send("POST", "/v1/embeddings", { json: { input: "a" } })
        expect(reply.status).toBe(404)
        expect(field(json(reply), "error", "code")).toBe("embeddings_not_supported")
      }))

    it.effect("and /api/embed answers 404 in Ollama's shape", () =>
      Effect.gen(function*() {
        const reply = yield* send("POST", "/api/embed", { json: { model: "m", input: "a" } })
        expect(reply.status).toBe(404)
        expect(String(field(json(reply), "error"))).toContain("no embeddings")
      }))
  })
})
