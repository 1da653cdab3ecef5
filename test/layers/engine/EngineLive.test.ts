import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Deferred, Effect, Either, Exit, Fiber, Schema, Stream } from "effect"
import {
  AssistantMessage,
  type ChatRequest,
  ContextOverflow,
  Engine,
  EngineLive,
  type ModelEvent,
  ModelLoadError,
  SystemMessage,
  Tool,
  UserMessage
} from "easyai"
import { presets } from "../../../src/domain/Sampling.js"
import { readGgufFileInfo } from "node-llama-cpp"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { engineConfig, testModels } from "../../support/models.js"
import { tinyGgufBytes } from "../../support/tinyGguf.js"

const PickParams = Schema.Struct({
  color: Schema.Literal("red", "green", "blue"),
  loud: Schema.Boolean
})
const pick = Tool.make({ name: "pick", description: "Pick a color.", parameters: PickParams, handler: () => Effect.succeed("") })
const count = Tool.make({
  name: "count",
  description: "Count to n.",
  parameters: Schema.Struct({ n: Schema.Literal(1, 2, 3) }),
  handler: () => Effect.succeed("")
})

const question = (text: string, more: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [new SystemMessage({ content: "You are a storyteller." }), new UserMessage({ content: text })],
  tools: [],
  sampling: presets.deterministic,
  maxTokens: 12,
  ...more
})

const collect = (request: ChatRequest) =>
  Effect.flatMap(Engine, (engine) => Effect.map(Stream.runCollect(engine.stream(request)), Chunk.toArray))

const text = (events: ReadonlyArray<ModelEvent>) =>
  events.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : [])).join("")

const usage = (events: ReadonlyArray<ModelEvent>) => {
  const found = events.find((event) => event._tag === "Usage")
  if (found?._tag !== "Usage") throw new Error("no Usage event")
  return found
}

for (const model of testModels) {
  describe(`Engine on ${model.name}`, () => {
    // Real time: generation runs on llama.cpp's threads, not on the TestClock.
    layer(EngineLive.layer(engineConfig(model, { sequences: 2 })), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("streams progress, text, usage, then the finish", () =>
        Effect.gen(function*() {
          const events = yield* collect(question("Once upon a time"))
          const tags = events.map((event) => event._tag)
          expect(tags[0]).toBe("PromptProgress")
          expect(tags.at(-1)).toBe("Finished")
          expect(tags.at(-2)).toBe("Usage")
          expect(tags.filter((tag) => tag === "TextDelta").length).toBeGreaterThan(0)
          const firstText = tags.indexOf("TextDelta")
          expect(tags.lastIndexOf("PromptProgress")).toBeLessThan(firstText)
          const stats = usage(events)
          expect(stats.promptTokens).toBeGreaterThan(0)
          expect(stats.completionTokens).toBeGreaterThan(0)
          expect(stats.completionTokens).toBeLessThanOrEqual(12)
          expect(stats.contextSize).toBe(2048)
          expect(stats.contextUsed).toBeGreaterThanOrEqual(stats.promptTokens)
          const finished = events.at(-1)
          expect(finished?._tag === "Finished" && ["stop", "length"].includes(finished.reason)).toBe(true)
        }))

      it.effect("is deterministic with greedy sampling", () =>
        Effect.gen(function*() {
          const first = text(yield* collect(question("Lily had a dog")))
          const second = text(yield* collect(question("Lily had a dog")))
          expect(second).toBe(first)
        }))

      it.effect("reuses the KV cache for a turn that extends the conversation", () =>
        Effect.gen(function*() {
          const turn1 = question("Tom saw a big red ball")
          const first = yield* collect(turn1)
          const turn2: ChatRequest = {
            ...turn1,
            messages: [
              ...turn1.messages,
              new AssistantMessage({ content: text(first) }),
              new UserMessage({ content: "What happened next?" })
            ]
          }
          const second = usage(yield* collect(turn2))
          expect(second.cachedTokens).toBeGreaterThan(usage(first).promptTokens / 2)
          expect(second.cachedTokens).toBeLessThan(second.promptTokens)
        }))

      it.effect("routes a conversation back to the sequence that holds its prefix", () =>
        Effect.gen(function*() {
          const story = (seed: string) => `${seed} ${"and then they walked to the park and played with a ball. ".repeat(8)}`
          const a = question(story("Anna and her cat"))
          const b = question(story("Ben and his dog"))
          const firstA = yield* collect(a)
          const firstB = yield* collect(b)
          const next = (request: ChatRequest, events: ReadonlyArray<ModelEvent>): ChatRequest => ({
            ...request,
            messages: [...request.messages, new AssistantMessage({ content: text(events) }), new UserMessage({ content: "More." })]
          })
          const againA = usage(yield* collect(next(a, firstA)))
          const againB = usage(yield* collect(next(b, firstB)))
          expect(againA.cachedTokens).toBeGreaterThanOrEqual(usage(firstA).promptTokens - 1)
          expect(againB.cachedTokens).toBeGreaterThanOrEqual(usage(firstB).promptTokens - 1)
        }))

      it.effect("forces a schema-valid tool call with toolChoice required", () =>
        Effect.gen(function*() {
          const events = yield* collect(question("Pick one", { tools: [pick.spec], toolChoice: "required", maxTokens: 96 }))
          const calls = events.flatMap((event) => (event._tag === "ToolCallRequested" ? [event.call] : []))
          expect(calls).toHaveLength(1)
          expect(calls[0]?.name).toBe("pick")
          expect(calls[0]?.id).toMatch(/^call_/)
          const decoded = Schema.decodeUnknownEither(PickParams)(JSON.parse(calls[0]?.arguments ?? ""))
          expect(Either.isRight(decoded)).toBe(true)
          expect(events.at(-1)).toMatchObject({ _tag: "Finished", reason: "tool_calls" })
          expect(events.some((event) => event._tag === "TextDelta")).toBe(false)
        }))

      it.effect("forces the named tool", () =>
        Effect.gen(function*() {
          const events = yield* collect(
            question("Count", { tools: [pick.spec, count.spec], toolChoice: { name: "count" }, maxTokens: 96 })
          )
          const call = events.find((event) => event._tag === "ToolCallRequested")
          expect(call?._tag === "ToolCallRequested" && call.call.name).toBe("count")
        }))

      it.effect("rejects a named tool the request does not offer", () =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(collect(question("x", { tools: [pick.spec], toolChoice: { name: "nope" } })))
          expect(error).toMatchObject({ _tag: "ModelError", reason: "InvalidRequest" })
          expect(error.message).toContain(`toolChoice names "nope"`)
        }))

      it.effect("stops within a token when interrupted, and the sequence serves the next request", () =>
        Effect.gen(function*() {
          const engine = yield* Engine
          const reference = text(yield* collect(question("The sun was warm", { maxTokens: 8 })))
          const firstDelta = yield* Deferred.make<void>()
          const fiber = yield* engine.stream(question("A long story", { maxTokens: 1500 })).pipe(
            Stream.runForEach((event) => (event._tag === "TextDelta" ? Deferred.succeed(firstDelta, undefined) : Effect.void)),
            Effect.fork
          )
          yield* Deferred.await(firstDelta)
          const exit = yield* Fiber.interrupt(fiber)
          expect(Exit.isInterrupted(exit)).toBe(true)
          const again = text(yield* collect(question("The sun was warm", { maxTokens: 8 })))
          expect(again).toBe(reference)
        }))

      it.effect("serves parallel requests on separate sequences", () =>
        Effect.gen(function*() {
          const prompts = ["One day", "A cat", "The rain"].map((prompt) => question(prompt, { maxTokens: 16 }))
          const sequential = yield* Effect.forEach(prompts, (p) => Effect.map(collect(p), text))
          const concurrent = yield* Effect.forEach(prompts, (p) => Effect.map(collect(p), text), { concurrency: 3 })
          expect(concurrent).toEqual(sequential)
        }))

      it.effect("fails with ContextOverflow when the prompt does not fit", () =>
        Effect.gen(function*() {
          const huge = "Once upon a time there was a very long story. ".repeat(400)
          const error = yield* Effect.flip(collect(question(huge)))
          expect(error).toBeInstanceOf(ContextOverflow)
          expect(error._tag === "ContextOverflow" && error.contextSize).toBe(2048)
        }))

      it.effect("exposes the node-llama-cpp objects", () =>
        Effect.gen(function*() {
          const engine = yield* Engine
          expect(engine.native.model.tokenize("hello").length).toBeGreaterThan(0)
          expect(engine.native.context.contextSize).toBe(2048)
          expect(engine.info).toMatchObject({ backend: "local", contextSize: 2048 })
        }))
    })
  })
}

describe("the default context size", () => {
  for (const model of testModels) {
    it.live(`is the training context of ${model.name}`, () =>
      Effect.gen(function*() {
        const trained = (yield* Effect.tryPromise(() => readGgufFileInfo(model.path, { readTensorInfo: false })))
          .architectureMetadata.context_length
        expect(trained).toBeGreaterThan(0)
        const loaded = yield* Effect.scoped(Effect.gen(function*() {
          const engine = yield* Engine
          return { info: engine.info.contextSize, native: engine.native.context.contextSize }
        }).pipe(Effect.provide(EngineLive.layer({ modelPath: model.path, threads: 1, gpuLayers: 0 }))))
        // These models are tiny: all of the training context fits in memory.
        expect(loaded).toEqual({ info: trained, native: trained })
      }), 60_000)
  }

  it.live("is not capped below a training context larger than 4096", () =>
    Effect.gen(function*() {
      const file = path.join(tmpdir(), `easyai-long-${process.pid}.gguf`)
      writeFileSync(file, tinyGgufBytes(7, "llama", { context: 16_384 }))
      const size = yield* Effect.scoped(
        Effect.map(Engine, (engine) => engine.info.contextSize).pipe(
          Effect.provide(EngineLive.layer({ modelPath: file, threads: 1, gpuLayers: 0 }))
        )
      )
      expect(size).toBe(16_384)
    }), 60_000)

  it.live("gives way to an explicit size", () =>
    Effect.gen(function*() {
      const tiny = testModels[0]!
      const size = yield* Effect.scoped(
        Effect.map(Engine, (engine) => engine.info.contextSize).pipe(Effect.provide(EngineLive.layer(engineConfig(tiny, { contextSize: 512 }))))
      )
      expect(size).toBe(512)
    }), 60_000)
})

describe("Engine load errors", () => {
  const loadError = (config: Parameters<typeof EngineLive.layer>[0]) =>
    Effect.flip(Effect.scoped(Effect.asVoid(Effect.provide(Engine, EngineLive.layer(config)))))
  const tiny = testModels[0]!

  it.live("names a missing file", () =>
    Effect.gen(function*() {
      const error = yield* loadError({ modelPath: "/nonexistent/model.gguf", threads: 1 })
      expect(error).toEqual(new ModelLoadError({ path: "/nonexistent/model.gguf", reason: "NotFound", detail: "no such file" }))
    }))

  it.live("recognizes a file that is not GGUF", () =>
    Effect.gen(function*() {
      const file = path.join(tmpdir(), `easyai-not-gguf-${process.pid}.txt`)
      writeFileSync(file, "hello, this is not a model\n")
      const error = yield* loadError({ modelPath: file, threads: 1 })
      expect(error.reason).toBe("NotGguf")
      expect(error.message).toContain(file)
    }))

  it.live("names an architecture llama.cpp does not know", () =>
    Effect.gen(function*() {
      const file = path.join(tmpdir(), `easyai-alien-${process.pid}.gguf`)
      writeFileSync(file, tinyGgufBytes(7, "alien"))
      const error = yield* loadError({ modelPath: file, threads: 1 })
      expect(error.reason).toBe("UnsupportedArchitecture")
      expect(error.detail).toContain("alien")
    }))

  it.live("refuses settings the runtime cannot honour", () =>
    Effect.gen(function*() {
      const rope = yield* loadError({ ...engineConfig(tiny), ropeScaling: { type: "yarn", freqScale: 2 } })
      expect(rope.reason).toBe("Unsupported")
      expect(rope.detail).toContain("RoPE scaling")
      const kv = yield* loadError({ ...engineConfig(tiny), kvCacheType: { key: "q9_9" } })
      expect(kv.detail).toContain("unknown KV-cache type")
      const template = yield* loadError({ ...engineConfig(tiny), chatTemplate: "{% for %}" })
      expect(template.detail).toContain("chat template")
    }))
})
