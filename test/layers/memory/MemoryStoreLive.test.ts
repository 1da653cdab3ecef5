import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { Preamble, PreambleLive } from "easyai"
import { bodyMaxBytes, type MemoryError } from "../../../src/domain/memory.js"
import { parseEntry } from "../../../src/layers/memory/entryFile.js"
import * as MemoryStoreLive from "../../../src/layers/memory/MemoryStoreLive.js"
import { MemoryStore } from "../../../src/services/MemoryStore.js"
import { tempDir } from "../../support/tempDir.js"

const reasonOf = <A>(effect: Effect.Effect<A, MemoryError>) => Effect.map(Effect.flip(effect), (error) => error.reason)

/** The same behaviour, run against both implementations. */
const implementations: ReadonlyArray<readonly [string, () => Layer.Layer<MemoryStore, MemoryError>]> = [
  ["fileSystem", () => MemoryStoreLive.fileSystem(tempDir())],
  ["inMemory", () => MemoryStoreLive.inMemory]
]

for (const [label, fresh] of implementations) {
  describe(`MemoryStore (${label})`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, MemoryStore>) => Effect.provide(effect, fresh())

    it.effect("names an entry by its sorted, lower-cased keywords and round-trips its body", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        const body = "line one\n\nline two — ünïcödé\n"
        const first = yield* store.save(["Python", " async ", "python"], body)
        expect(first.created).toBe(true)
        expect(first.entry).toMatchObject({
          key: "async_python",
          file: "async_python.md",
          keywords: ["async", "python"],
          fixed: false,
          bytes: Buffer.byteLength(body)
        })
        const again = yield* store.save(["python", "async"], "replaced")
        expect(again.created).toBe(false)
        const loaded = yield* store.load(["ASYNC", "python"])
        expect(loaded.body).toBe("replaced")
        expect(loaded.bytes).toBe(8)
        const leading = yield* store.save(["edge"], "\n\nstarts with blank lines")
        expect((yield* store.load(["edge"])).body).toBe("\n\nstarts with blank lines")
        expect(leading.entry.file).toBe("edge.md")
      })))

    it.effect("rejects invalid keywords and path tricks on every operation", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        const bad: ReadonlyArray<ReadonlyArray<string>> = [
          ["../x"],
          ["a/b"],
          ["a\\b"],
          ["a\u0000b"],
          [""],
          ["   "],
          ["."],
          [".."],
          ["..."],
          ["a_b"],
          ["two words"],
          ["café"],
          ["x".repeat(33)],
          [],
          ["k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"]
        ]
        for (const keywords of bad) {
          expect(yield* reasonOf(store.save(keywords, "body")), JSON.stringify(keywords)).toBe("InvalidKeywords")
          expect(yield* reasonOf(store.append(keywords, "body"))).toBe("InvalidKeywords")
          expect(yield* reasonOf(store.load(keywords))).toBe("InvalidKeywords")
          expect(yield* reasonOf(store.delete(keywords))).toBe("InvalidKeywords")
          expect(yield* reasonOf(store.search(keywords))).toBe("InvalidKeywords")
        }
        expect(yield* reasonOf(store.list("../"))).toBe("InvalidKeywords")
        const traversal = yield* Effect.flip(store.save(["../x"], "body"))
        expect(traversal.message).toContain(`contains "/"`)
        const underscore = yield* Effect.flip(store.save(["async_python"], "body"))
        expect(underscore.message).toContain(`["async","python"]`)
        const nul = yield* Effect.flip(store.save(["a\u0000b"], "body"))
        expect(nul.message).toContain("U+0000")
        expect((yield* Effect.flip(store.save(["x".repeat(33)], "b"))).message).toContain("33 bytes; the most is 32")
        expect((yield* Effect.flip(store.save(["1", "2", "3", "4", "5", "6", "7", "8", "9"], "b"))).message)
          .toContain("9 keywords given; an entry has 1 to 8")
        // The limits themselves are fine.
        const longest = yield* store.save(["x".repeat(32), "c++", "node.js", "-v", "a+b", "1.0", "q", "z"], "ok")
        expect(longest.entry.keywords).toHaveLength(8)
        expect((yield* store.list()).total).toBe(1)
      })))

    it.effect("caps the body at 256 KiB of UTF-8 and refuses an empty one", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        expect((yield* store.save(["big"], "a".repeat(bodyMaxBytes))).entry.bytes).toBe(262144)
        expect(yield* reasonOf(store.save(["big"], "a".repeat(bodyMaxBytes + 1)))).toBe("BodyTooLarge")
        // 131 073 characters, 262 146 bytes: the cap counts bytes.
        const wide = yield* Effect.flip(store.save(["wide"], "é".repeat(131_073)))
        expect(wide.reason).toBe("BodyTooLarge")
        expect(wide.message).toContain("262146 bytes; an entry holds at most 262144 bytes")
        expect(yield* reasonOf(store.save(["empty"], "  \n"))).toBe("EmptyBody")
        expect(yield* reasonOf(store.append(["empty"], ""))).toBe("EmptyBody")
        expect((yield* store.load(["big"])).bytes).toBe(262144)
      })))

    it.effect("keeps fix- entries immutable: no overwrite, append or delete", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        const minted = yield* store.save(["easyai", "design"], "keywords are the identifier", { fix: true })
        expect(minted.entry).toMatchObject({ file: "fix-easyai_design.md", fixed: true, keywords: ["fix-easyai", "design"] })
        expect(yield* reasonOf(store.save(["fix-easyai", "design"], "changed"))).toBe("Immutable")
        expect(yield* reasonOf(store.save(["easyai", "design"], "changed", { fix: true }))).toBe("Immutable")
        expect(yield* reasonOf(store.append(["design", "fix-easyai"], "more"))).toBe("Immutable")
        expect(yield* reasonOf(store.delete(["fix-easyai", "design"]))).toBe("Immutable")
        expect((yield* store.load(["design", "fix-easyai"])).body).toBe("keywords are the identifier")
        // A fix- keyword given directly marks the entry too; append cannot create one.
        expect((yield* store.save(["fix-rule", "alpha"], "x")).entry).toMatchObject({ file: "fix-rule_alpha.md", fixed: true })
        expect(yield* reasonOf(store.append(["fix-new"], "x"))).toBe("Immutable")
        expect(yield* reasonOf(store.load(["fix-new"]))).toBe("NotFound")
        // The unfixed entry with the same plain keywords is a different entry.
        expect((yield* store.save(["easyai", "design"], "mutable")).created).toBe(true)
        // fix=true on a 29-byte first keyword would exceed 32 bytes.
        const tooLong = yield* Effect.flip(store.save(["y".repeat(29)], "x", { fix: true }))
        expect(tooLong.message).toContain(`becomes "fix-${"y".repeat(29)}", 33 bytes`)
      })))

    it.effect("appends after a --- line, creating the entry when missing, within the cap", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        const created = yield* store.append(["notes"], "hello")
        expect(created).toMatchObject({ created: true, addedBytes: 5, entry: { file: "notes.md", bytes: 5 } })
        const updated = yield* store.append(["notes"], "world")
        expect(updated).toMatchObject({ created: false, addedBytes: 12, entry: { bytes: 17 } })
        expect((yield* store.load(["notes"])).body).toBe("hello\n\n---\n\nworld")
        yield* store.save(["ends"], "line\n")
        yield* store.append(["ends"], "next")
        expect((yield* store.load(["ends"])).body).toBe("line\n\n---\n\nnext")
        yield* store.save(["full"], "f".repeat(bodyMaxBytes - 10))
        const over = yield* Effect.flip(store.append(["full"], "0123456789"))
        expect(over.reason).toBe("BodyTooLarge")
        expect(over.message).toContain(`appending would make "full.md"`)
        expect((yield* store.load(["full"])).bytes).toBe(bodyMaxBytes - 10)
      })))

    it.effect("ranks search hits by matching keywords, then most recent, and caps the page", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        yield* store.save(["a"], "1")
        yield* TestClock.adjust("1 second")
        yield* store.save(["a", "b", "c"], "3")
        yield* TestClock.adjust("1 second")
        yield* store.save(["a", "b"], "2")
        yield* TestClock.adjust("1 second")
        yield* store.save(["b", "z"], "older two")
        yield* TestClock.adjust("1 second")
        yield* store.save(["b", "y"], "newer two")
        yield* store.save(["unrelated"], "x")
        const result = yield* store.search(["c", "B", "a"])
        expect(result.total).toBe(5)
        expect(result.hits.map((hit) => [hit.entry.key, hit.matched])).toEqual([
          ["a_b_c", ["c", "b", "a"]],
          ["a_b", ["b", "a"]],
          ["b_y", ["b"]],
          ["b_z", ["b"]],
          ["a", ["a"]]
        ])
        // Fixed entries answer to their plain keyword.
        yield* store.save(["design"], "fixed", { fix: true })
        expect((yield* store.search(["design"])).hits.map((hit) => hit.entry.file)).toEqual(["fix-design.md"])
        expect((yield* store.search(["nothing"])).total).toBe(0)
        for (let i = 0; i < 25; i++) yield* store.save(["many", `n${i}`], "x")
        expect((yield* store.search(["many"])).hits).toHaveLength(10)
        expect((yield* store.search(["many"], 50)).hits).toHaveLength(20)
        expect((yield* store.search(["many"], 0)).hits).toHaveLength(1)
        expect((yield* store.search(["many"], 3)).total).toBe(25)
      })))

    it.effect("lists by key or keyword prefix, 50 by default and 200 at most", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        yield* store.save(["python", "async"], "x")
        yield* store.save(["pytest"], "x")
        yield* store.save(["rust"], "x")
        expect((yield* store.list("py")).entries.map((e) => e.file)).toEqual(["async_python.md", "pytest.md"])
        expect((yield* store.list("ASYNC_")).entries.map((e) => e.file)).toEqual(["async_python.md"])
        expect((yield* store.list("nope")).total).toBe(0)
        expect((yield* store.list()).total).toBe(3)
        for (let i = 0; i < 210; i++) yield* store.save([`bulk${String(i).padStart(3, "0")}`], "x")
        const page = yield* store.list("bulk")
        expect(page.total).toBe(210)
        expect(page.entries).toHaveLength(50)
        expect(page.entries[0]?.file).toBe("bulk000.md")
        expect((yield* store.list("bulk", 500)).entries).toHaveLength(200)
        expect((yield* store.list("", 7)).entries).toHaveLength(7)
      })))

    it.effect("counts keywords, most common first, 200 by default and 500 at most", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        yield* store.save(["python", "async"], "x")
        yield* store.save(["python", "web"], "x")
        yield* store.save(["rust", "async"], "x")
        yield* store.save(["zig"], "x")
        const page = yield* store.keywords()
        expect(page).toEqual({
          entries: 4,
          distinct: 5,
          keywords: [
            { keyword: "async", count: 2 },
            { keyword: "python", count: 2 },
            { keyword: "rust", count: 1 },
            { keyword: "web", count: 1 },
            { keyword: "zig", count: 1 }
          ]
        })
        expect((yield* store.keywords(undefined, 2)).keywords.map((k) => k.keyword)).toEqual(["async", "python"])
        expect((yield* store.keywords(1)).keywords).toEqual([{ keyword: "async", count: 2 }])
        for (let i = 0; i < 70; i++) {
          yield* store.save(Array.from({ length: 8 }, (_, j) => `k${i}x${j}`), "x")
        }
        const all = yield* store.keywords()
        expect(all.distinct).toBe(565)
        expect(all.keywords).toHaveLength(200)
        expect((yield* store.keywords(10_000)).keywords).toHaveLength(500)
        expect((yield* store.vocabulary).entries).toBe(74)
      })))

    it.effect("deletes, then reports the entry as missing", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        yield* store.save(["node", "version"], "20")
        expect(yield* store.delete(["version", "node"])).toMatchObject({ file: "node_version.md", bytes: 2 })
        const missing = yield* Effect.flip(store.delete(["node", "version"]))
        expect(missing.reason).toBe("NotFound")
        expect(missing.message).toContain(`knowledge_search(keywords=["node","version"])`)
        expect(yield* reasonOf(store.load(["node", "version"]))).toBe("NotFound")
        expect((yield* store.vocabulary).entries).toBe(0)
      })))

    it.effect("keeps the vocabulary current with its own writes", () =>
      run(Effect.gen(function*() {
        const store = yield* MemoryStore
        expect(yield* store.vocabulary).toEqual({ entries: 0, keywords: [] })
        yield* store.save(["rust", "async"], "x")
        yield* store.append(["rust"], "y")
        expect(yield* store.vocabulary).toEqual({
          entries: 2,
          keywords: [{ keyword: "rust", count: 2 }, { keyword: "async", count: 1 }]
        })
        yield* store.delete(["rust"])
        expect((yield* store.vocabulary).entries).toBe(1)
      })))

    it.effect("feeds the preamble's MEMORY VOCABULARY block", () =>
      Effect.gen(function*() {
        const store = yield* MemoryStore
        yield* store.save(["easyai", "build"], "x")
        yield* store.save(["easyai", "claude"], "x")
        const text = yield* Effect.flatMap(Preamble, (preamble) => preamble.build({ injectDateTime: false }))
        expect(text).toContain("2 entries (most-common first")
        expect(text.endsWith("easyai(2) build(1) claude(1)")).toBe(true)
      }).pipe(Effect.provide(PreambleLive.layerWithMemory().pipe(Layer.provideMerge(fresh())))))
  })
}

/** A counter of directory scans and entry reads, through the store's test-only probe. */
const probe = () => {
  const counts = { scan: 0, read: 0 }
  return { counts, options: { onDiskAccess: (access: "scan" | "read") => void counts[access]++ } }
}

/** Makes the directory look untouched for an hour, as a quiet store's directory is. */
const settle = (dir: string) => {
  const past = new Date(Date.now() - 3_600_000)
  utimesSync(dir, past, past)
}

const storeAt = (dir: string, options: MemoryStoreLive.FileSystemOptions = {}) =>
  Effect.provide(MemoryStore, MemoryStoreLive.fileSystem(dir, options))

describe("MemoryStoreLive.fileSystem", () => {
  it.effect("writes one Markdown file per entry: a keywords header, a blank line, the body", () => {
    const dir = tempDir()
    return Effect.gen(function*() {
      const store = yield* storeAt(dir)
      yield* store.save(["python", "async"], "# Async\nUse asyncio.run.")
      yield* store.save(["easyai", "design"], "fixed", { fix: true })
      expect(readdirSync(dir).sort()).toEqual(["async_python.md", "fix-easyai_design.md"])
      expect(readFileSync(path.join(dir, "async_python.md"), "utf8")).toBe("keywords: async python\n\n# Async\nUse asyncio.run.")
      expect(readFileSync(path.join(dir, "fix-easyai_design.md"), "utf8")).toBe("keywords: fix-easyai design\n\nfixed")
    })
  })

  it.effect("creates its directory, and indexes hand-written entries but not other files", () => {
    const dir = path.join(tempDir(), "nested", "memory")
    return Effect.gen(function*() {
      const store = yield* storeAt(dir)
      writeFileSync(path.join(dir, "README.md"), "# operator notes\n")
      writeFileSync(path.join(dir, "notes.md"), "no header here\n")
      writeFileSync(path.join(dir, "b_a.md"), "keywords: a b\n\nnot in canonical order\n")
      writeFileSync(path.join(dir, "Upper.md"), "keywords: upper\n\nupper case stem\n")
      writeFileSync(path.join(dir, "hand_written.md"), "keywords: hand, written\n\nby the operator\n")
      writeFileSync(path.join(dir, "hand.md.1234.tmp"), "keywords: hand\n\ntemporary\n")
      mkdirSync(path.join(dir, "folder.md"))
      expect((yield* store.list()).entries.map((e) => e.file)).toEqual(["hand_written.md"])
      expect(yield* store.load(["written", "hand"])).toMatchObject({ body: "by the operator\n", bytes: 16 })
      expect(yield* reasonOf(store.save(["notes"], "x"))).toBe("Conflict")
      expect(yield* reasonOf(store.load(["notes"]))).toBe("Conflict")
      expect(yield* reasonOf(store.delete(["notes"]))).toBe("Conflict")
      expect(yield* reasonOf(store.save(["folder"], "x"))).toBe("Conflict")
      expect(readFileSync(path.join(dir, "notes.md"), "utf8")).toBe("no header here\n")
    })
  })

  it.effect("never follows a symbolic link at an entry's path", () => {
    const dir = tempDir()
    const outside = path.join(tempDir(), "secret.md")
    writeFileSync(outside, "keywords: secret\n\ntop secret\n")
    symlinkSync(outside, path.join(dir, "secret.md"))
    return Effect.gen(function*() {
      const store = yield* storeAt(dir)
      expect((yield* store.list()).total).toBe(0)
      expect(yield* reasonOf(store.load(["secret"]))).toBe("Conflict")
      expect(yield* reasonOf(store.append(["secret"], "more"))).toBe("Conflict")
      expect(readFileSync(outside, "utf8")).toBe("keywords: secret\n\ntop secret\n")
    })
  })

  it.effect("writes nothing anywhere for a rejected keyword", () => {
    const parent = tempDir()
    const dir = path.join(parent, "memory")
    return Effect.gen(function*() {
      const store = yield* storeAt(dir)
      for (const keyword of ["../x", "../../etc/passwd", "a/b", "/abs", "a\u0000b", "..", "."]) {
        yield* Effect.flip(store.save([keyword], "body"))
        yield* Effect.flip(store.append([keyword], "body"))
      }
      expect(readdirSync(parent)).toEqual(["memory"])
      expect(readdirSync(dir)).toEqual([])
    })
  })

  it.live("keeps every one of 100 concurrent saves, each file whole", () => {
    const dir = tempDir()
    return Effect.gen(function*() {
      const store = yield* storeAt(dir)
      yield* Effect.forEach(
        Array.from({ length: 100 }, (_, i) => i),
        (i) => store.save(["bulk", `item${i}`], `body of item ${i}\n`.repeat(50)),
        { concurrency: "unbounded" }
      )
      const files = readdirSync(dir)
      expect(files).toHaveLength(100) // no temporary file left behind
      for (const file of files) {
        const parsed = parseEntry(readFileSync(path.join(dir, file), "utf8"))
        const item = file.slice("bulk_".length, -".md".length)
        expect(parsed?.headerKeywords).toEqual(["bulk", item])
        expect(parsed?.body).toBe(`body of ${item.replace("item", "item ")}\n`.repeat(50))
      }
      expect((yield* store.list("", 200)).total).toBe(100)
      expect((yield* store.keywords()).keywords[0]).toEqual({ keyword: "bulk", count: 100 })
      // A second store (another process) indexes the same 100 from disk.
      expect((yield* (yield* storeAt(dir)).search(["bulk"], 20)).total).toBe(100)
    })
  })

  it.live("lets two stores on one directory (two processes) see each other's writes", () => {
    const dir = tempDir()
    return Effect.gen(function*() {
      const a = yield* storeAt(dir)
      const b = yield* storeAt(dir)
      expect((yield* a.list()).total).toBe(0)
      expect((yield* b.list()).total).toBe(0)
      yield* a.save(["from", "a"], "written by a")
      yield* b.save(["from", "b"], "written by b")
      expect((yield* a.list()).entries.map((e) => e.file)).toEqual(["a_from.md", "b_from.md"])
      expect((yield* b.search(["a"])).hits.map((hit) => hit.entry.file)).toEqual(["a_from.md"])
      expect((yield* b.load(["a", "from"])).body).toBe("written by a")
      expect((yield* a.vocabulary).keywords).toContainEqual({ keyword: "from", count: 2 })
      yield* b.append(["a", "from"], "and b")
      expect((yield* a.load(["a", "from"])).body).toBe("written by a\n\n---\n\nand b")
      yield* a.delete(["b", "from"])
      expect((yield* b.list()).entries.map((e) => e.file)).toEqual(["a_from.md"])
      expect(yield* reasonOf(b.load(["b", "from"]))).toBe("NotFound")
      yield* a.save(["rule"], "first", { fix: true })
      expect(yield* reasonOf(b.save(["fix-rule"], "second"))).toBe("Immutable")
      expect((yield* b.load(["fix-rule"])).body).toBe("first")
      // Even on a directory settled long ago, a change by the other store is noticed.
      settle(dir)
      expect((yield* b.vocabulary).entries).toBe(2)
      yield* a.save(["late"], "x")
      expect((yield* b.vocabulary).entries).toBe(3)
    })
  })

  it.effect("serves a warm vocabulary from cache: no directory walk, no file re-read", () => {
    const dir = tempDir()
    const { counts, options } = probe()
    writeFileSync(path.join(dir, "one.md"), "keywords: one\n\n1")
    writeFileSync(path.join(dir, "one_two.md"), "keywords: one two\n\n2")
    writeFileSync(path.join(dir, "three.md"), "keywords: three\n\n3")
    return Effect.gen(function*() {
      const store = yield* storeAt(dir, options)
      expect(counts).toEqual({ scan: 0, read: 0 }) // loaded lazily
      settle(dir)
      expect(yield* store.vocabulary).toEqual({
        entries: 3,
        keywords: [{ keyword: "one", count: 2 }, { keyword: "three", count: 1 }, { keyword: "two", count: 1 }]
      })
      expect(counts).toEqual({ scan: 1, read: 3 })
      yield* store.vocabulary
      yield* store.vocabulary
      yield* store.search(["one"])
      expect(counts).toEqual({ scan: 1, read: 3 }) // warm: one stat each

      // Its own write shows at once, from the index: no file is read back.
      yield* store.save(["four"], "4")
      expect((yield* store.vocabulary).entries).toBe(4)
      expect(counts.read).toBe(3)
      settle(dir)
      yield* store.vocabulary
      const settled = { ...counts }
      yield* store.vocabulary
      yield* store.vocabulary
      expect(counts).toEqual(settled)

      // Another process's write changes the directory: only the new file is read.
      writeFileSync(path.join(dir, "five.md"), "keywords: five\n\n5")
      expect((yield* store.vocabulary).entries).toBe(5)
      expect(counts.read).toBe(4)
      expect(counts.scan).toBe(settled.scan + 1)
    })
  })

  it.effect("keeps the last vocabulary when the directory becomes unreadable", () => {
    const dir = tempDir()
    return Effect.gen(function*() {
      const store = yield* storeAt(dir)
      yield* store.save(["kept"], "x")
      expect((yield* store.vocabulary).entries).toBe(1)
      rmSync(dir, { recursive: true })
      expect(yield* store.vocabulary).toEqual({ entries: 1, keywords: [{ keyword: "kept", count: 1 }] })
      expect(yield* reasonOf(store.list())).toBe("Io")
      expect(existsSync(dir)).toBe(false)
    })
  })
})
