/**
 * Answers in a shape on the real engine: a grammar holds a real GGUF model
 * to JSON (any object, or a schema), even a model that would never write it,
 * and the façade decodes the answer into the schema's type.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, Schema, Stream } from "effect"
import { ChatModel, easyai, LocalChatModel, type ResponseFormat, ToolSpec, UserMessage } from "easyai"
import { z } from "zod"
import { engineConfig, testModels } from "../../support/models.js"
import { field, json, send, served } from "../../support/server.js"

const model = testModels.find((candidate) => candidate.name.startsWith("stories")) ?? testModels[0]
if (model === undefined) throw new Error("no test model")

const mood: ResponseFormat = {
  type: "json_schema",
  name: "mood",
  schema: {
    type: "object",
    properties: { mood: { type: "string", enum: ["happy", "sad"] }, tired: { type: "boolean" } },
    required: ["mood", "tired"]
  }
}

const weather = new ToolSpec({
  name: "get_weather",
  description: "The weather.",
  shortDescription: "The weather.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
})

/** The text and the events' tags of one shaped answer. */
const answer = (responseFormat: ResponseFormat, maxTokens: number) =>
  Effect.gen(function*() {
    const chat = yield* ChatModel
    const events = Chunk.toArray(yield* Stream.runCollect(chat.stream({
      messages: [new UserMessage({ content: "Once upon a time there was a dog. How does he feel?" })],
      tools: [weather],
      responseFormat,
      maxTokens,
      sampling: { temperature: 0, topK: 1, topP: 1, minP: 0 }
    })))
    const text = events.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : [])).join("")
    return { text, tags: events.map((event) => event._tag) }
  })

describe(`answers in a shape on ${model.name}`, () => {
  layer(LocalChatModel.layerFrom(engineConfig(model)), { timeout: 120_000 })((it) => {
    it.effect("a JSON Schema format: the answer is JSON of that schema, and no tool is called", () =>
      Effect.gen(function*() {
        const { tags, text } = yield* answer(mood, 64)
        expect(Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({
          mood: Schema.Literal("happy", "sad"),
          tired: Schema.Boolean
        })))(text)).toBeDefined()
        expect(tags).not.toContain("ToolCallRequested")
        expect(tags.at(-1)).toBe("Finished")
      }))

    it.effect("json_object: the grammar holds even a story model to a JSON object", () =>
      Effect.gen(function*() {
        // A free object runs as long as the model keeps writing strings: this one fills its budget, so the test
        // reads the opening the grammar forced (a model left free tells a story from its first token).
        const { text } = yield* answer({ type: "json_object" }, 64)
        // An object from its first character: a key follows on a story model, `}` may on the generated one.
        expect(text.trimStart()).toMatch(/^\{\s*["}]/)
      }))

    it.effect("a schema no grammar can be built from is the request's error", () =>
      Effect.gen(function*() {
        const refused = yield* Effect.flip(answer({ type: "json_schema", name: "bad", schema: { type: "object", properties: { a: { type: "object", const: { b: 1 } } } } }, 8))
        expect(refused).toMatchObject({ _tag: "ModelError", reason: "InvalidRequest", field: "responseFormat" })
      }))
  })
})

describe(`the façade's ask with output, on ${model.name}`, () => {
  it.live("decodes the answer into an Effect Schema's type, and into a zod schema's", () =>
    Effect.promise(async () => {
      await using agent = easyai.local(engineConfig(model)).withDefaultTools(false)
      const effectShaped = await agent.ask("How does the dog feel?", {
        output: Schema.Struct({ mood: Schema.Literal("happy", "sad"), tired: Schema.Boolean }),
        maxTokens: 64
      })
      expect(["happy", "sad"]).toContain(effectShaped.mood)
      expect(typeof effectShaped.tired).toBe("boolean")
      const zodShaped = await agent.ask("And the cat?", { output: z.object({ sleeping: z.boolean() }), maxTokens: 32 })
      expect(typeof zodShaped.sleeping).toBe("boolean")
    }), 120_000)
})

describe(`response_format through easyai serve's app on ${model.name}`, () => {
  layer(served({ model: LocalChatModel.layerFrom(engineConfig(model)), session: { withDefaultTools: false } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("a schema no grammar can be built from is a 400 naming response_format, and the server keeps serving", () =>
      Effect.gen(function*() {
        const refused = yield* send("POST", "/v1/chat/completions", {
          json: {
            messages: [{ role: "user", content: "hi" }],
            max_tokens: 4,
            response_format: { type: "json_schema", json_schema: { name: "bad", schema: { type: "object", properties: { a: { type: "object", const: { b: 1 } } } } } }
          }
        })
        expect(refused.status).toBe(400)
        expect(field(json(refused), "error", "param")).toBe("response_format")
        const wrongType = yield* send("POST", "/v1/chat/completions", { json: { messages: [{ role: "user", content: "hi" }], response_format: { type: "xml" } } })
        expect(wrongType.status).toBe(400)
        expect(field(json(wrongType), "error", "param")).toBe("response_format.type")
        expect((yield* send("POST", "/v1/chat/completions", { json: { messages: [{ role: "user", content: "hi" }], max_tokens: 4 } })).status).toBe(200)
      }))
  })
})
