import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ToolCall, ToolRegistry, ToolRegistryLive } from "easyai"
import { toolLookup } from "../../../src/layers/tools/toolLookup.js"
import { echo, named } from "../../support/tools.js"

const lookup = (args: unknown) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    yield* registry.add(yield* toolLookup)
    return yield* registry.call(new ToolCall({ id: "c", name: "tool_lookup", arguments: JSON.stringify(args) }))
  }).pipe(Effect.provide(ToolRegistryLive.layer({ tools: [echo, named("fs_read"), named("fs_write")] })))

describe("tool_lookup", () => {
  it.effect("lists an index without arguments", () =>
    Effect.gen(function*() {
      const result = yield* lookup({})
      expect(result.isError).toBe(false)
      expect(result.content.split("\n")).toEqual([
        "4 tools:",
        "1. echo: Echo the text back.",
        "2. fs_read: The fs_read tool.",
        "3. fs_write: The fs_write tool.",
        "4. tool_lookup: List your tools, or read the full manual of one (name=<part of a tool name>)."
      ])
    }))

  it.effect("shows the full manual of every tool whose name contains the text", () =>
    Effect.gen(function*() {
      const one = yield* lookup({ name: "ECHO" })
      expect(one.content).toBe("## echo\nEcho the text back.\nRequired: text.")
      const many = yield* lookup({ name: "fs_" })
      expect(many.content).toBe("## fs_read\nThe fs_read tool.\n\n## fs_write\nThe fs_write tool.")
    }))

  it.effect("says clearly when nothing matches", () =>
    Effect.gen(function*() {
      const result = yield* lookup({ name: "telescope" })
      expect(result.content).toBe(`no tool matches "telescope". Your tools are: echo, fs_read, fs_write, tool_lookup.`)
    }))
})
