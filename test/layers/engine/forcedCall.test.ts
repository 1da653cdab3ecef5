/**
 * The forced tool call's grammar bound: every free string of the call is
 * bounded by the generation's token budget, so a call fits its budget; and
 * a call the budget still cuts short ends the turn with `length`, no call.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, Either, Schema, Stream } from "effect"
import { type ChatRequest, Engine, EngineLive, type ModelEvent, SystemMessage, Tool, UserMessage } from "easyai"
import { presets } from "../../../src/domain/Sampling.js"
import {
  boundStrings,
  maxForcedString,
  readForcedCall,
  stringBound,
  stringSlots
} from "../../../src/layers/engine/forcedCall.js"
import { engineConfig, testModels } from "../../support/models.js"

describe("the forced call's string bound", () => {
  it("counts the free strings: enums, consts and formats are not free", () => {
    const args = {
      type: "object",
      properties: {
        city: { type: "string" },
        unit: { type: "string", enum: ["C", "F"] },
        day: { type: "string", format: "date" },
        kind: { const: "now" },
        tags: { type: "array", items: { type: "string" } },
        note: { type: ["string", "null"] }
      }
    }
    expect(stringSlots(args)).toBe(3)
  })

  it("bounds every free string, keeps a tighter bound of the schema's own, and splits type lists", () => {
    const bounded = boundStrings({
      type: "object",
      properties: {
        city: { type: "string" },
        code: { type: "string", maxLength: 3 },
        unit: { type: "string", enum: ["C", "F"] },
        note: { type: ["string", "null"], description: "Optional." },
        tags: { type: "array", items: { type: "string" } }
      }
    }, 10)
    expect(bounded["properties"]).toEqual({
      city: { type: "string", maxLength: 10 },
      code: { type: "string", maxLength: 3 },
      unit: { type: "string", enum: ["C", "F"] },
      note: { description: "Optional.", oneOf: [{ type: "string", maxLength: 10 }, { type: ["null"] }] },
      tags: { type: "array", items: { type: "string", maxLength: 10 } }
    })
  })

  it("shares the budget left after the widest skeleton among the strings, four tokens a character, within [0, cap]", () => {
    const args = { type: "object", properties: { city: { type: "string" } } }
    // The skeleton with a newline and indentation before every key is 74 characters, then 4 closing newlines.
    expect(stringBound("get_weather", args, 100)).toBe(Math.floor((100 - 78) / 4))
    expect(stringBound("get_weather", args, 1000)).toBe(Math.floor((1000 - 78) / 4))
    // Two strings: an 88-character skeleton, and the rest shared.
    const two = { type: "object", properties: { a: { type: "string" }, b: { type: "string" } } }
    expect(stringBound("get_weather", two, 200)).toBe(Math.floor((200 - 92) / 8))
    expect(stringBound("get_weather", args, 20)).toBe(0)
    expect(stringBound("get_weather", args, 1_000_000)).toBe(maxForcedString)
  })
})

const Weather = Schema.Struct({ city: Schema.String })
const weather = Tool.make({ name: "get_weather", description: "The weather in a city.", parameters: Weather, handler: () => Effect.succeed("") })

const forced = (maxTokens: number): ChatRequest => ({
  messages: [new SystemMessage({ content: "You call tools." }), new UserMessage({ content: "What is the weather in Paris?" })],
  tools: [weather.spec],
  toolChoice: "required",
  sampling: presets.deterministic,
  maxTokens
})

const collect = (request: ChatRequest) =>
  Effect.flatMap(Engine, (engine) => Effect.map(Stream.runCollect(engine.stream(request)), Chunk.toArray))

const finish = (events: ReadonlyArray<ModelEvent>) => {
  const last = events.at(-1)
  return last?._tag === "Finished" ? last.reason : undefined
}

const completionTokens = (events: ReadonlyArray<ModelEvent>) =>
  events.reduce((sum, event) => sum + (event._tag === "Usage" ? event.completionTokens : 0), 0)

describe("reading the forced call", () => {
  layer(EngineLive.layer(engineConfig(testModels[0]!)), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("reads a call whose strings count characters as the grammar does, an emoji one, where node-llama-cpp's validator counts two", () =>
      Effect.gen(function*() {
        const { llama } = (yield* Engine).native
        const grammar = yield* Effect.promise(() =>
          llama.createGrammarForJsonSchema({
            type: "object",
            properties: {
              name: { const: "note" },
              arguments: { type: "object", properties: { text: { type: "string", maxLength: 3 } } }
            }
          })
        )
        // Three characters for a bound of three, each outside the Basic Multilingual Plane.
        const text = `{"name": "note", "arguments": {"text": "😀🎉🚀"}}`
        expect(() => grammar.parse(text)).toThrow("Expected at most 3 characters but got 6")
        const read = readForcedCall(text)
        expect(Either.isRight(read) && { name: read.right.name, arguments: JSON.parse(read.right.arguments) }).toEqual({
          name: "note",
          arguments: { text: "😀🎉🚀" }
        })
      }))
  })

  it("says why a text is not a call: cut before its end, or without a name", () => {
    expect(Either.isLeft(readForcedCall(`{"name": "note", "arguments": {"text": "abc`))).toBe(true)
    expect(readForcedCall(`{"arguments": {}}`)).toEqual(Either.left("the call has no name"))
  })
})

for (const model of testModels) {
  describe(`forced calls on ${model.name}`, () => {
    // Real time: generation runs on llama.cpp's threads, not on the TestClock.
    layer(EngineLive.layer(engineConfig(model)), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a budget too small for the call ends the turn with length and presents no call", () =>
        Effect.gen(function*() {
          const events = yield* collect(forced(5))
          expect(events.some((event) => event._tag === "ToolCallRequested")).toBe(false)
          expect(finish(events)).toBe("length")
          expect(completionTokens(events)).toBe(5)
        }))

      it.effect("a stop sequence that cuts the call ends the turn with stop and presents no call", () =>
        Effect.gen(function*() {
          const events = yield* collect({ ...forced(200), stop: ["arguments"] })
          expect(events.some((event) => event._tag === "ToolCallRequested")).toBe(false)
          expect(finish(events)).toBe("stop")
        }))

      it.effect("a call completes within a budget that holds its skeleton: its string kept to the bound, its arguments JSON", () =>
        Effect.gen(function*() {
          for (const budget of [96, 160, 256]) {
            const events = yield* collect(forced(budget))
            expect(finish(events)).toBe("tool_calls")
            const call = events.flatMap((event) => (event._tag === "ToolCallRequested" ? [event.call] : []))
            expect(call.map((one) => one.name)).toEqual(["get_weather"])
            const args = Schema.decodeUnknownSync(Schema.parseJson(Weather))(call[0]?.arguments)
            expect(args.city.length).toBeLessThanOrEqual(stringBound("get_weather", { properties: { city: { type: "string" } } }, budget))
            expect(completionTokens(events)).toBeLessThanOrEqual(budget)
          }
        }))
    })
  })
}
