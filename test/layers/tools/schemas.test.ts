import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SessionStack, ToolRegistry, type ToolSpec } from "easyai"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { tempDir } from "../../support/tempDir.js"

/** Every built-in tool, both surfaces of each family. */
const everyTool = SessionStack.layer({
  model: Scripted.layer([]),
  toolMode: "both",
  host: { root: tempDir(), fs: true, bash: true, evaluate: true, isolate: "off" },
  memory: tempDir(),
  system: true
})

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Every `properties` entry of a schema, at any depth, with its path. */
const properties = (schema: unknown, at = ""): ReadonlyArray<readonly [string, Record<string, unknown>]> => {
  if (!isObject(schema)) return []
  const own = isObject(schema["properties"])
    ? Object.entries(schema["properties"]).flatMap(([name, sub]) =>
      isObject(sub) ? [[`${at}${name}`, sub] as const, ...properties(sub, `${at}${name}.`)] : []
    )
    : []
  const items = isObject(schema["items"]) ? properties(schema["items"], `${at}[].`) : []
  return [...own, ...items]
}

/** "1..20" or "1 to 20" in a text. */
const rangeIn = (text: string): readonly [number, number] | undefined => {
  const match = /\b(\d+)(?:\.\.| to )(\d+)\b/.exec(text)
  return match === null ? undefined : [Number(match[1]), Number(match[2])]
}

/** `  name  Optional. 1..20, …` lines of a tool's manual. */
const manualRanges = (spec: ToolSpec): ReadonlyArray<readonly [string, number, number]> =>
  spec.description.split("\n").flatMap((line) => {
    const match = /^\s+(\w+)\s+(?:Optional|Required)\.\s+(\d+)\.\.(\d+)/.exec(line)
    return match === null ? [] : [[match[1] ?? "", Number(match[2]), Number(match[3])] as const]
  })

describe("built-in tool schemas", () => {
  it.scoped("carry no Effect refinement name as a title, and every range a description states is the schema's", () =>
    Effect.gen(function*() {
      const specs = yield* (yield* ToolRegistry).specs
      expect(specs.map((spec) => spec.name)).toEqual(expect.arrayContaining(["web_search", "web", "fs_read", "system_load"]))
      let ranges = 0
      for (const spec of specs) {
        expect(JSON.stringify(spec.parameters), spec.name).not.toMatch(/"title":"[a-z][A-Za-z0-9]*(\(|")/)
        const byName = new Map(properties(spec.parameters))
        for (const [name, property] of byName) {
          const range = rangeIn(String(property["description"] ?? ""))
          if (range === undefined) continue
          ranges += 1
          const bounds = property["type"] === "array"
            ? [property["minItems"], property["maxItems"]]
            : [property["minimum"], property["maximum"]]
          expect(bounds, `${spec.name}.${name}: ${property["description"]}`).toEqual(range)
        }
        for (const [name, low, high] of manualRanges(spec)) {
          const property = byName.get(name)
          ranges += 1
          expect([property?.["minimum"], property?.["maximum"]], `${spec.name} manual: ${name} ${low}..${high}`).toEqual([low, high])
        }
      }
      // The check ran on the ranges the tools state (web, bash, evaluate, knowledge, system_*).
      expect(ranges).toBeGreaterThan(10)
    }).pipe(Effect.provide(everyTool)))
})
