import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { ToolCall, ToolRegistry, ToolRegistryLive } from "easyai"
import { bodyMaxBytes, type MemoryError } from "../../../src/domain/memory.js"
import { parseEntry } from "../../../src/layers/memory/entryFile.js"
import * as MemoryStoreLive from "../../../src/layers/memory/MemoryStoreLive.js"
import { knowledgeTools } from "../../../src/layers/tools/knowledge.js"
import type { MemoryStore } from "../../../src/services/MemoryStore.js"
import { tempDir } from "../../support/tempDir.js"

/** A registry holding the seven knowledge tools over `memory`. */
const registryWith = (memory: Layer.Layer<MemoryStore, MemoryError>) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const registry = yield* ToolRegistry
    for (const tool of yield* knowledgeTools) yield* registry.add(tool)
  })).pipe(Layer.provideMerge(Layer.merge(ToolRegistryLive.layer(), memory)))

const call = (name: string, args: unknown) =>
  Effect.flatMap(ToolRegistry, (registry) => registry.call(new ToolCall({ id: "c", name, arguments: JSON.stringify(args) })))

/** Calls a tool and expects success; returns the text. */
const ok = (name: string, args: unknown) =>
  Effect.map(call(name, args), (result) => {
    expect(result.isError, result.content).toBe(false)
    return result.content
  })

/** Calls a tool and expects an error result; returns the text. */
const refused = (name: string, args: unknown) =>
  Effect.map(call(name, args), (result) => {
    expect(result.isError, result.content).toBe(true)
    return result.content
  })

const epoch = "1970-01-01 00:00 UTC" // the TestClock's time, stamped on every entry

const implementations: ReadonlyArray<readonly [string, () => Layer.Layer<MemoryStore, MemoryError>]> = [
  ["fileSystem", () => MemoryStoreLive.fileSystem(tempDir())],
  ["inMemory", () => MemoryStoreLive.inMemory]
]

for (const [label, fresh] of implementations) {
  describe(`knowledge tools (${label})`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, ToolRegistry>) => Effect.provide(effect, registryWith(fresh()))

    it.effect("registers seven tools whose manuals teach the memory-first workflow", () =>
      run(Effect.gen(function*() {
        const specs = yield* Effect.flatMap(ToolRegistry, (registry) => registry.specs)
        expect(specs.map((spec) => spec.name)).toEqual([
          "knowledge_search",
          "knowledge_load",
          "knowledge_save",
          "knowledge_append",
          "knowledge_list",
          "knowledge_keywords",
          "knowledge_delete"
        ])
        const byName = new Map(specs.map((spec) => [spec.name, spec]))
        expect(byName.get("knowledge_save")?.description).toContain("USE THIS AGGRESSIVELY")
        for (const name of ["knowledge_save", "knowledge_search"]) {
          const description = byName.get(name)?.description ?? ""
          expect(description).toContain("1. Memory first")
          expect(description).toContain("2. Web second")
          expect(description).toContain("3. Merge and answer")
          expect(description).toContain("4. Update memory")
        }
        expect(byName.get("knowledge_search")?.shortDescription).toContain("FIRST")
        for (const spec of specs) expect(spec.shortDescription.length).toBeLessThanOrEqual(200)
        expect(byName.get("knowledge_search")?.parameters).toMatchObject({
          properties: { max_results: { type: "integer", minimum: 1, maximum: 20 } },
          required: ["keywords"]
        })
        expect(byName.get("knowledge_keywords")?.parameters).toMatchObject({
          properties: { max: { maximum: 500 } }
        })
      })))

    it.effect("saves, replaces, and mints immutable fix- entries", () =>
      run(Effect.gen(function*() {
        const content = "Use asyncio.run() to start the loop."
        expect(yield* ok("knowledge_save", { keywords: ["Python", "asyncio"], content }))
          .toBe(`created "asyncio_python.md" (36 bytes)`)
        expect(yield* ok("knowledge_save", { keywords: ["asyncio", "python"], content: "v2" }))
          .toBe(`updated "asyncio_python.md" (2 bytes, replaced the previous body)`)
        expect(yield* ok("knowledge_save", { keywords: ["easyai", "design"], content: "fixed", fix: true }))
          .toBe(`created "fix-easyai_design.md" (5 bytes)`)
        expect(yield* refused("knowledge_save", { keywords: ["fix-easyai", "design"], content: "changed" }))
          .toBe(
            `knowledge_save: "fix-easyai_design.md" is a fix- entry and immutable: you cannot overwrite it. ` +
              `Save new or corrected facts under other keywords (without fix-).`
          )
        // A model writing the flag as a string is forgiven.
        expect(yield* ok("knowledge_save", { keywords: ["rule"], content: "x", fix: "true" }))
          .toBe(`created "fix-rule.md" (1 bytes)`)
      })))

    it.effect("appends with the reference's exact size messages", () =>
      run(Effect.gen(function*() {
        expect(yield* ok("knowledge_append", { keywords: ["notes"], content: "hello" })).toBe(`created "notes.md" (5 bytes)`)
        expect(yield* ok("knowledge_append", { keywords: ["notes"], content: "world" }))
          .toBe(`updated "notes.md" (+12 B → 17 B total)`)
        expect(yield* ok("knowledge_load", { keywords: [["notes"]] })).toBe(
          `=== notes.md (keywords: notes; 17 bytes; saved ${epoch}) ===\nhello\n\n---\n\nworld`
        )
        yield* ok("knowledge_save", { keywords: ["core"], content: "x", fix: true })
        expect(yield* refused("knowledge_append", { keywords: ["fix-core"], content: "more" }))
          .toContain(`"fix-core.md" is a fix- entry and immutable: you cannot append to it`)
        yield* ok("knowledge_save", { keywords: ["full"], content: "f".repeat(bodyMaxBytes - 3) })
        expect(yield* refused("knowledge_append", { keywords: ["full"], content: "abc" }))
          .toContain(`appending would make "full.md" 262151 bytes (it has 262141 bytes)`)
      })))

    it.effect("refuses invalid keywords, path tricks and over-cap content with teaching errors", () =>
      run(Effect.gen(function*() {
        for (const keyword of ["../x", "a/b", "a\u0000b", "", "..", "x".repeat(33)]) {
          const text = yield* refused("knowledge_save", { keywords: [keyword], content: "body" })
          expect(text.startsWith("knowledge_save: "), text).toBe(true)
        }
        expect(yield* refused("knowledge_save", { keywords: ["../x"], content: "b" }))
          .toContain(`keyword "../x" contains "/": a keyword is one word of letters, digits, ".", "+" or "-"`)
        expect(yield* refused("knowledge_save", { keywords: ["1", "2", "3", "4", "5", "6", "7", "8", "9"], content: "b" }))
          .toBe("knowledge_save: 9 keywords given; an entry has 1 to 8: keep the most specific ones")
        expect(yield* refused("knowledge_save", { keywords: [], content: "b" }))
          .toContain(`no keywords given: pass 1 to 8 keywords`)
        expect(yield* refused("knowledge_save", { keywords: ["big"], content: "a".repeat(bodyMaxBytes + 1) }))
          .toContain("the content is 262145 bytes; an entry holds at most 262144 bytes (256 KiB)")
        expect(yield* refused("knowledge_save", { content: "b" })).toContain("keywords: is missing")
        expect(yield* refused("knowledge_delete", { keywords: ["a/../b"] })).toContain(`contains "/"`)
        expect(yield* refused("knowledge_load", { keywords: ["../../etc/passwd"] })).toContain(`contains "/"`)
        expect(yield* refused("knowledge_list", { prefix: "../" })).toContain(`prefix "../" contains "/"`)
      })))

    it.effect("ranks search results, pages them, and points at knowledge_load", () =>
      run(Effect.gen(function*() {
        yield* ok("knowledge_save", { keywords: ["python", "asyncio", "sockets"], content: "three" })
        yield* ok("knowledge_save", { keywords: ["python", "asyncio"], content: "two" })
        yield* ok("knowledge_save", { keywords: ["python"], content: "one" })
        yield* ok("knowledge_save", { keywords: ["rust"], content: "none" })
        expect(yield* ok("knowledge_search", { keywords: ["asyncio", "python", "sockets"] })).toBe([
          "3 entries match, best first:",
          `1. asyncio_python_sockets.md — keywords: asyncio python sockets — 5 bytes — ${epoch} — matched 3/3: asyncio python sockets`,
          `2. asyncio_python.md — keywords: asyncio python — 3 bytes — ${epoch} — matched 2/3: asyncio python`,
          `3. python.md — keywords: python — 3 bytes — ${epoch} — matched 1/3: python`,
          `Read them with knowledge_load({"keywords":[["asyncio","python","sockets"],["asyncio","python"],["python"]]}).`
        ].join("\n"))
        expect(yield* ok("knowledge_search", { keywords: ["nothing"] })).toBe(
          "no entry carries any of: nothing. Memory holds 4 entries (knowledge_keywords lists its vocabulary). " +
            "Look it up elsewhere (the web, files), then knowledge_save what you learn."
        )
        for (let i = 0; i < 12; i++) yield* ok("knowledge_save", { keywords: ["bulk", `b${i}`], content: "x" })
        const page = (yield* ok("knowledge_search", { keywords: ["bulk"] })).split("\n")
        expect(page[0]).toBe("12 entries match (showing the best 10), best first:")
        expect(page).toHaveLength(12)
        expect((yield* ok("knowledge_search", { keywords: ["bulk"], max_results: "20" })).split("\n")).toHaveLength(14)
        expect(yield* refused("knowledge_search", { keywords: ["bulk"], max_results: 21 }))
          .toContain("max_results: expected an integer from 1 to 20, got 21")
        expect(yield* refused("knowledge_search", { keywords: ["bulk"], max_results: 0 }))
          .toContain("max_results: expected an integer from 1 to 20, got 0")
      })))

    it.effect("loads 1 to 4 entries by keywords or file name, reporting the missing ones", () =>
      run(Effect.gen(function*() {
        yield* ok("knowledge_save", { keywords: ["asyncio", "python"], content: "async body" })
        yield* ok("knowledge_save", { keywords: ["easyai", "design"], content: "design body", fix: true })
        expect(yield* ok("knowledge_load", { keywords: [["python", "asyncio"], "fix-easyai_design.md"] })).toBe(
          `=== asyncio_python.md (keywords: asyncio python; 10 bytes; saved ${epoch}) ===\nasync body\n\n` +
            `=== fix-easyai_design.md (keywords: fix-easyai design; 11 bytes; saved ${epoch}; fixed) ===\ndesign body`
        )
        expect(yield* ok("knowledge_load", { keywords: ["asyncio_python", ["missing"]] })).toBe(
          `=== asyncio_python.md (keywords: asyncio python; 10 bytes; saved ${epoch}) ===\nasync body\n\n` +
            `=== not loaded: no entry "missing.md": knowledge_search(keywords=["missing"]) finds the entries that carry these keywords ===`
        )
        expect(yield* refused("knowledge_load", { keywords: [["gone"]] })).toBe(
          `knowledge_load: no entry "gone.md": knowledge_search(keywords=["gone"]) finds the entries that carry these keywords`
        )
        // A flat list of words meant one entry's keywords.
        expect(yield* ok("knowledge_load", { keywords: ["asyncio", "python"] })).toContain(
          "(read your keywords as one entry's; pass [[...]] for one entry, or file names for several)\n=== asyncio_python.md"
        )
        expect(yield* refused("knowledge_load", { keywords: [["a"], ["b"], ["c"], ["d"], ["e"]] })).toBe(
          "knowledge_load: you asked for 5 entries; knowledge_load reads 1 to 4 per call: load the 4 most relevant " +
            "(knowledge_search ranks them), then more if you still need them"
        )
        expect(yield* refused("knowledge_load", { keywords: [] })).toContain("pass 1 to 4 entries")
        // Four is fine, even when some are missing.
        expect(yield* ok("knowledge_load", { keywords: [["asyncio", "python"], ["x"], ["y"], ["z"]] })).toContain("async body")
      })))

    it.effect("lists by prefix, 50 by default and at most 200", () =>
      run(Effect.gen(function*() {
        expect(yield* ok("knowledge_list", {})).toBe("memory is empty: knowledge_save what is worth remembering.")
        yield* ok("knowledge_save", { keywords: ["python", "asyncio"], content: "x" })
        yield* ok("knowledge_save", { keywords: ["pytest"], content: "xy" })
        yield* ok("knowledge_save", { keywords: ["rust"], content: "x" })
        expect(yield* ok("knowledge_list", { prefix: "py" })).toBe([
          `2 entries starting with "py":`,
          `- asyncio_python.md — keywords: asyncio python — 1 bytes — ${epoch}`,
          `- pytest.md — keywords: pytest — 2 bytes — ${epoch}`
        ].join("\n"))
        expect(yield* ok("knowledge_list", { prefix: "zzz" })).toBe(
          `no entry has a name or keyword starting with "zzz": try a shorter prefix, or knowledge_list without one.`
        )
        for (let i = 0; i < 57; i++) yield* ok("knowledge_save", { keywords: [`item${i}`], content: "x" })
        const all = (yield* ok("knowledge_list", {})).split("\n")
        expect(all[0]).toBe("60 entries:")
        expect(all).toHaveLength(52)
        expect(all[51]).toBe("(showing 50 of 60: narrow with prefix, or raise max up to 200)")
        expect((yield* ok("knowledge_list", { max: 200 })).split("\n")).toHaveLength(61)
        expect(yield* refused("knowledge_list", { max: 201 })).toContain("max: expected an integer from 1 to 200, got 201")
      })))

    it.effect("deletes entries, but never a fix- one", () =>
      run(Effect.gen(function*() {
        yield* ok("knowledge_save", { keywords: ["node", "version"], content: "20" })
        yield* ok("knowledge_save", { keywords: ["rule"], content: "keep", fix: true })
        expect(yield* ok("knowledge_delete", { keywords: ["version", "node"] })).toBe(`deleted "node_version.md" (2 bytes)`)
        expect(yield* refused("knowledge_delete", { keywords: ["node", "version"] })).toContain(
          `no entry "node_version.md": knowledge_search(keywords=["node","version"])`
        )
        expect(yield* refused("knowledge_delete", { keywords: ["fix-rule"] })).toBe(
          `knowledge_delete: "fix-rule.md" is a fix- entry and immutable: you cannot delete it. ` +
            `Leave it, or ask the operator to remove the file.`
        )
        expect(yield* ok("knowledge_load", { keywords: ["fix-rule.md"] })).toContain("keep")
      })))

    it.effect("lists the vocabulary with counts, 200 by default and at most 500", () =>
      run(Effect.gen(function*() {
        expect(yield* ok("knowledge_keywords", {})).toBe("memory is empty: knowledge_save what is worth remembering.")
        yield* ok("knowledge_save", { keywords: ["python", "async"], content: "x" })
        yield* ok("knowledge_save", { keywords: ["python", "web"], content: "x" })
        yield* ok("knowledge_save", { keywords: ["rust", "async"], content: "x" })
        expect(yield* ok("knowledge_keywords", {})).toBe(
          "3 entries, 4 distinct keywords (most common first):\nasync(2) python(2) rust(1) web(1)"
        )
        expect(yield* ok("knowledge_keywords", { min_count: 2 })).toBe(
          "3 entries, 2 distinct keywords carried by at least 2 entries (most common first):\nasync(2) python(2)"
        )
        expect(yield* ok("knowledge_keywords", { min_count: 5 })).toBe(
          "3 entries, 0 distinct keywords carried by at least 5 entries: lower min_count to see the rest."
        )
        expect(yield* ok("knowledge_keywords", { max: 1 })).toBe(
          "3 entries, 4 distinct keywords (most common first):\nasync(2)\n(showing 1 of 4: raise max up to 500, or min_count)"
        )
        expect(yield* refused("knowledge_keywords", { max: 501 })).toContain("max: expected an integer from 1 to 500, got 501")
        expect(yield* refused("knowledge_keywords", { min_count: 0 })).toContain("min_count:")
      })))
  })
}

describe("knowledge tools on files", () => {
  it.live("keeps all of 100 concurrent knowledge_save calls, each file whole", () => {
    const dir = tempDir()
    return Effect.gen(function*() {
      const results = yield* Effect.forEach(
        Array.from({ length: 100 }, (_, i) => i),
        (i) => call("knowledge_save", { keywords: ["parallel", `n${i}`], content: `entry ${i}\n`.repeat(100) }),
        { concurrency: "unbounded" }
      )
      expect(results.filter((result) => result.isError)).toEqual([])
      const files = readdirSync(dir)
      expect(files).toHaveLength(100)
      for (const file of files) {
        const n = file.slice("n".length, -"_parallel.md".length)
        const parsed = parseEntry(readFileSync(path.join(dir, file), "utf8"))
        expect(parsed?.body, file).toBe(`entry ${n}\n`.repeat(100))
      }
      expect(yield* ok("knowledge_keywords", { max: 1 })).toContain("parallel(100)")
      expect((yield* ok("knowledge_list", { max: 200 })).split("\n")[0]).toBe("100 entries:")
    }).pipe(Effect.provide(registryWith(MemoryStoreLive.fileSystem(dir))))
  })
})
