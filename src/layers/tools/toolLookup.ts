/**
 * `tool_lookup`: the model's way to read a tool's full manual when its
 * one-line trigger is not enough.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import * as Tool from "../../domain/Tool.js"
import type { ToolSpec } from "../../domain/ToolCall.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"

const description = `Look up the tools you have: an index of every tool, or the full manual of one.
Use it when a tool's one-line description does not tell you enough to call it correctly.

Parameters:
  name  Optional. A tool name or part of one (case-insensitive).

Output:
  without name: a numbered index, one "name: short description" line per tool.
  with name:    the full manual of every tool whose name contains it.

Examples:
  {}                  -> the index
  {"name": "fs_read"} -> the manual of fs_read
  {"name": "fs"}      -> the manuals of every fs tool

Errors: a name that matches no tool returns the list of tool names to pick from.`

const indexView = (specs: ReadonlyArray<ToolSpec>): string =>
  [`${specs.length} tools:`, ...specs.map((spec, i) => `${i + 1}. ${spec.name}: ${spec.shortDescription}`)].join("\n")

const manualView = (specs: ReadonlyArray<ToolSpec>): string =>
  specs.map((spec) => `## ${spec.name}\n${spec.description}`).join("\n\n")

/** Builds `tool_lookup` over the registry it will be registered in. */
export const toolLookup: Effect.Effect<Tool.Tool, never, ToolRegistry> = Effect.map(ToolRegistry, (registry) =>
  Tool.make({
    name: "tool_lookup",
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    description,
    shortDescription: "List your tools, or read the full manual of one (name=<part of a tool name>).",
    parameters: Schema.Struct({
      name: Schema.optional(Schema.String.annotations({ description: "Optional. A tool name or part of one." }))
    }),
    handler: ({ name }) =>
      Effect.map(registry.specs, (specs) => {
        const wanted = name?.trim().toLowerCase() ?? ""
        if (wanted === "") return indexView(specs)
        const matches = specs.filter((spec) => spec.name.toLowerCase().includes(wanted))
        return matches.length > 0
          ? manualView(matches)
          : `no tool matches "${name}". Your tools are: ${specs.map((spec) => spec.name).join(", ")}.`
      })
  }))
