/**
 * `Engine.complete`: template-free continuation of a raw prompt on a real
 * model — its events, its limits, and the sequence it gives back to the pool
 * when it is stopped early.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { ContextOverflow, Engine, EngineLive, type ModelEvent } from "easyai"
import { presets } from "../../../src/domain/Sampling.js"
import { engineConfig, reachableStop, testModels } from "../../support/models.js"

const model = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]
if (model === undefined) throw new Error("no test model")

const prompt = "Once upon a time, there was a little"

const textOf = (events: ReadonlyArray<ModelEvent>): string =>
  events.map((event) => (event._tag === "TextDelta" ? event.text : "")).join("")

const run = (request: Parameters<Engine["Type"]["complete"]>[0]) =>
  Effect.flatMap(Engine, (engine) => Stream.runCollect(engine.complete(request))).pipe(Effect.map(Chunk.toReadonlyArray))

describe(`Engine.complete on ${model.name}`, () => {
  // One sequence: a completion that kept its sequence would block the next one for good.
  layer(EngineLive.layer(engineConfig(model, { sequences: 1, contextSize: 512 })), { timeout: 120_000 })((it) => {
    it.effect("text deltas, then usage, then Finished(length) at maxTokens; greedy runs repeat", () =>
      Effect.gen(function*() {
        const first = yield* run({ prompt, maxTokens: 8, sampling: presets.deterministic })
        expect(first.map((event) => event._tag).slice(-2)).toEqual(["Usage", "Finished"])
        const usage = first.find((event) => event._tag === "Usage")
        expect(usage?._tag === "Usage" ? usage.completionTokens : 0).toBe(8)
        expect(first.at(-1)).toMatchObject({ reason: "length" })
        expect(textOf(first).length).toBeGreaterThan(0)
        const again = yield* run({ prompt, maxTokens: 8, sampling: presets.deterministic })
        expect(textOf(again)).toBe(textOf(first))
      }))

    it.effect("a stop sequence ends the text before it, with Finished(stop)", () =>
      Effect.gen(function*() {
        const free = textOf(yield* run({ prompt, maxTokens: 16, sampling: presets.deterministic }))
        const word = reachableStop(free) ?? ""
        expect(word).not.toBe("")
        const stopped = yield* run({ prompt, maxTokens: 16, sampling: presets.deterministic, stop: [word] })
        expect(textOf(stopped)).not.toContain(word)
        expect(stopped.at(-1)).toMatchObject({ reason: "stop" })
      }))

    it.effect("stopped after its first delta, a completion gives its sequence back: the next one runs", () =>
      Effect.gen(function*() {
        const engine = yield* Engine
        const head = yield* Stream.runCollect(Stream.take(engine.complete({ prompt, maxTokens: 400 }), 1))
        expect(Chunk.size(head)).toBe(1)
        const next = yield* run({ prompt, maxTokens: 4, sampling: presets.deterministic }).pipe(Effect.timeout("30 seconds"))
        expect(next.at(-1)).toMatchObject({ reason: "length" })
      }))

    it.effect("a prompt longer than the context fails with ContextOverflow", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(run({ prompt: "the dog ran ".repeat(400) }))
        expect(error).toBeInstanceOf(ContextOverflow)
      }))
  })
})
