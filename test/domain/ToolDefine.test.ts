import { describe, expect, it } from "@effect/vitest"
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { Deferred, Effect, Fiber } from "effect"
import { tool, Tool } from "easyai"
import { z } from "zod"

const dice = tool({
  name: "roll_dice",
  description: "Roll one die. Example: {\"sides\": 6}",
  parameters: z.object({ sides: z.int().min(2).max(100).describe("Sides, 2 to 100."), label: z.string().optional() }),
  handler: async ({ label, sides }) => `${label ?? "die"}: ${sides}`
})

describe("tool(): a tool without Effect", () => {
  it("shows the model the JSON Schema zod derives, without its dialect", () => {
    expect(tool).toBe(Tool.define)
    expect(dice.spec.parameters).toMatchObject({
      type: "object",
      properties: { sides: { type: "integer", minimum: 2, maximum: 100, description: "Sides, 2 to 100." }, label: { type: "string" } },
      required: ["sides"]
    })
    expect(dice.spec.parameters).not.toHaveProperty("$schema")
  })

  it.effect("forgives a quoted number, runs a Promise handler, and teaches with zod's issues", () =>
    Effect.gen(function*() {
      expect(yield* dice.invoke(`{"sides": "20"}`)).toMatchObject({ content: "die: 20", isError: false })
      const refused = yield* dice.invoke(`{"sides": 500, "label": 3}`)
      expect(refused.isError).toBe(true)
      expect(refused.content).toMatch(/^roll_dice: invalid arguments: /)
      expect(refused.content).toMatch(/sides: [^;\n]*100/)
      expect(refused.content).toMatch(/label: [^;\n]*string/)
      expect(refused.content).toContain(`Example call: roll_dice(`)
    }))

  it.effect("turns what a handler throws into an error result the model reads", () =>
    Effect.gen(function*() {
      const broken = tool({
        name: "broken",
        description: "Fails.",
        handler: () => {
          throw new Error("the disk is full")
        }
      })
      expect(yield* broken.invoke("{}")).toMatchObject({ content: "broken: the disk is full", isError: true })
      const rejecting = tool({ name: "rejecting", description: "Rejects.", handler: () => Promise.reject(new Error("no route")) })
      expect(yield* rejecting.invoke("{}")).toMatchObject({ content: "rejecting: no route", isError: true })
    }))

  it.effect("takes a plain JSON Schema and checks its required parameters", () =>
    Effect.gen(function*() {
      const greet = tool({
        name: "greet",
        description: "Greets someone.",
        parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        handler: ({ name }) => `hello ${String(name)}`
      })
      expect(yield* greet.invoke(`{"name": "Ada"}`)).toMatchObject({ content: "hello Ada", isError: false })
      const missing = yield* greet.invoke("{}")
      expect(missing.isError).toBe(true)
      expect(missing.content).toContain("name: is missing")
    }))

  it.effect("aborts the handler's signal when the call is interrupted", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const aborted = yield* Deferred.make<string>()
      const slow = tool({
        name: "slow",
        description: "Waits until cancelled.",
        handler: (_, { signal }) =>
          new Promise<string>((resolve) => {
            signal.addEventListener("abort", () => {
              Deferred.unsafeDone(aborted, Effect.succeed(String(signal.reason)))
              resolve("stopped")
            })
            Deferred.unsafeDone(started, Effect.void)
          })
      })
      const call = yield* Effect.fork(slow.invoke("{}"))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(call)
      expect(yield* Deferred.await(aborted)).not.toBe("")
    }))

  it("asks for jsonSchema when the schema's library cannot describe it, and uses it when given", () => {
    const bare: StandardSchemaV1<unknown, { readonly n: number }> = {
      "~standard": {
        version: 1,
        vendor: "handmade",
        validate: (value) =>
          typeof value === "object" && value !== null && "n" in value && typeof value.n === "number"
            ? { value: { n: value.n } }
            : { issues: [{ message: "n must be a number", path: ["n"] }] }
      }
    }
    expect(() => tool({ name: "bare", description: "d", parameters: bare, handler: ({ n }) => String(n) }))
      .toThrow("tool bare: its parameters' library (handmade) cannot describe them as JSON Schema: pass jsonSchema")
    const described = tool({
      name: "bare",
      description: "d",
      parameters: bare,
      jsonSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      handler: ({ n }) => String(n * 2)
    })
    return Effect.runPromise(Effect.gen(function*() {
      expect(yield* described.invoke(`{"n": "21"}`)).toMatchObject({ content: "42", isError: false })
      expect((yield* described.invoke(`{"n": [1]}`)).content).toContain("n: n must be a number")
    }))
  })
})
