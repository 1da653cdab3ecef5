import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Tool, ToolCall, ToolRegistrationError, ToolRegistry, ToolRegistryLive, ToolResult } from "easyai"
import { echo, named } from "../../support/tools.js"

const call = (name: string, args: unknown = {}) =>
  new ToolCall({ id: "call_1", name, arguments: JSON.stringify(args) })

describe("ToolRegistryLive", () => {
  it.effect("dispatches a call to its tool", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      expect(yield* registry.call(call("echo", { text: "hi" }))).toEqual(ToolResult.ok("hi"))
    }).pipe(Effect.provide(ToolRegistryLive.layer({ tools: [echo] }))))

  it.effect("answers an unknown tool with the closest registered names", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const result = yield* registry.call(call("fs_reed"))
      expect(result.isError).toBe(true)
      expect(result.content).toBe(
        "unknown tool: fs_reed. Did you mean: fs_read? Call only the tools listed in your schema."
      )
      const partial = yield* registry.call(call("fs"))
      expect(partial.content).toContain("Did you mean: fs_read, fs_write?")
      const far = yield* registry.call(call("telescope"))
      expect(far.content).toBe(
        "unknown tool: telescope. Available tools: fs_read, fs_write, web_search. Call only the tools listed in your schema."
      )
    }).pipe(Effect.provide(ToolRegistryLive.layer({ tools: [named("fs_read"), named("fs_write"), named("web_search")] }))))

  it.effect("turns a handler defect into an error result and keeps going", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const result = yield* registry.call(call("explode"))
      expect(result).toEqual(ToolResult.error("explode: internal error: kaboom"))
      expect(yield* registry.call(call("throws"))).toEqual(ToolResult.error("throws: internal error: thrown early"))
      expect(yield* registry.call(call("echo", { text: "still here" }))).toEqual(ToolResult.ok("still here"))
    }).pipe(Effect.provide(ToolRegistryLive.layer({
      tools: [
        echo,
        Tool.make({ name: "explode", description: "Dies.", handler: () => Effect.die(new Error("kaboom")) }),
        Tool.make({
          name: "throws",
          description: "Throws before returning an Effect.",
          handler: () => {
            throw new Error("thrown early")
          }
        })
      ]
    }))))

  it.effect("routes the legacy python3 name to evaluate", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      expect(yield* registry.call(call("python3"))).toEqual(ToolResult.ok("evaluate"))
      expect(yield* registry.has("python3")).toBe(true)
      expect((yield* registry.specs).map((spec) => spec.name)).toEqual(["evaluate"])
    }).pipe(Effect.provide(ToolRegistryLive.layer({ tools: [named("evaluate")] }))))

  it.effect("accepts tools mid-session and removes them", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      expect(yield* registry.has("echo")).toBe(false)
      yield* registry.add(echo)
      expect(yield* registry.call(call("echo", { text: "late" }))).toEqual(ToolResult.ok("late"))
      expect(yield* registry.remove("echo")).toBe(true)
      expect(yield* registry.remove("echo")).toBe(false)
      expect((yield* registry.call(call("echo", { text: "x" }))).isError).toBe(true)
    }).pipe(Effect.provide(ToolRegistryLive.layer())))

  it.effect("rejects a duplicate and an invalid name with typed errors", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      yield* registry.add(echo)
      expect(yield* Effect.exit(registry.add(echo))).toEqual(
        Exit.fail(new ToolRegistrationError({ name: "echo", reason: "Duplicate" }))
      )
      const bad = Tool.make({ name: "no spaces", description: "x", handler: () => Effect.succeed("") })
      const error = yield* Effect.flip(registry.add(bad))
      expect(error.reason).toBe("InvalidName")
      expect(error.message).toContain("not a valid tool name")
    }).pipe(Effect.provide(ToolRegistryLive.layer())))

  it.effect("fails to build with an invalid initial tool", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(ToolRegistryLive.make({ tools: [echo, echo] }))
      expect(Exit.isFailure(exit)).toBe(true)
    }))

  describe("tool modes", () => {
    const family = [named("datetime"), named("fs_read", "split"), named("fs_write", "split"), named("fs", "unified")]
    const visible = (mode: "split" | "unified" | "both") =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry
        return (yield* registry.specs).map((spec) => spec.name)
      }).pipe(Effect.provide(ToolRegistryLive.layer({ mode, tools: family })))

    it.effect("shows one focused tool per verb in split mode (the default)", () =>
      Effect.gen(function*() {
        expect(yield* visible("split")).toEqual(["datetime", "fs_read", "fs_write"])
        const registry = yield* ToolRegistryLive.make({ tools: family })
        expect(registry.mode).toBe("split")
      }))

    it.effect("shows the action-dispatching tool in unified mode, both in both", () =>
      Effect.gen(function*() {
        expect(yield* visible("unified")).toEqual(["datetime", "fs"])
        expect(yield* visible("both")).toEqual(["datetime", "fs_read", "fs_write", "fs"])
      }))

    it.effect("does not dispatch to a surface the mode hides", () =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry
        const result = yield* registry.call(call("fs"))
        expect(result.isError).toBe(true)
        expect(result.content).toContain("unknown tool: fs.")
      }).pipe(Effect.provide(ToolRegistryLive.layer({ mode: "split", tools: family }))))
  })

  it.effect("never fails the caller on bad arguments", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const result = yield* registry.call(new ToolCall({ id: "c", name: "count", arguments: "{not json" }))
      expect(result.isError).toBe(true)
      expect(result.content).toContain("count: invalid arguments")
    }).pipe(Effect.provide(ToolRegistryLive.layer({
      tools: [Tool.make({
        name: "count",
        description: "Count.",
        parameters: Schema.Struct({ n: Schema.Int }),
        handler: ({ n }) => Effect.succeed(String(n))
      })]
    }))))
})
