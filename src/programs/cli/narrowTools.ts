/**
 * `--tools a,b,c`: the registry narrowed to these tools. The others are
 * removed, so the catalogue, `tool_lookup` and MCP's `tools/list` all agree
 * on what exists.
 *
 * @module
 */
import { Effect, Option } from "effect"
import { ToolRegistry } from "../../services/ToolRegistry.js"

/** Removes every tool not in `list`; a name in it that no tool has is a warning. */
export const narrowTools = (list: Option.Option<ReadonlyArray<string>>) =>
  Option.match(list, {
    onNone: () => Effect.void,
    onSome: (names) =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry
        const wanted = new Set(names)
        const present = (yield* registry.specs).map((spec) => spec.name)
        for (const name of present) if (!wanted.has(name)) yield* registry.remove(name)
        const unknown = [...wanted].filter((name) => !present.includes(name))
        if (unknown.length > 0) yield* Effect.logWarning(`--tools: no tool called ${unknown.join(", ")}`)
      })
  })
