import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import * as path from "node:path"
import { ToolCall, type ToolMode, ToolRegistry } from "easyai"
import { callTool, fsToolsLayer } from "../../support/fsTools.js"
import { tempDir } from "../../support/tempDir.js"

const created: Array<string> = []
afterAll(() => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true })
})

/** A sandbox root at `<tmp>/root` holding `files`, with `<tmp>/outside/secret.txt` beside it. */
const fixture = (files: Readonly<Record<string, string | Uint8Array>> = {}) => {
  const base = tempDir("easyai-fs-")
  created.push(base)
  const root = path.join(base, "root")
  const outside = path.join(base, "outside")
  mkdirSync(root)
  mkdirSync(outside)
  writeFileSync(path.join(outside, "secret.txt"), "secret\n")
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    writeFileSync(path.join(root, name), content)
  }
  return { base, root, outside }
}

/** A registry holding every fs tool over a sandbox at `root`. */
const tools = (root: string, mode: ToolMode = "both") => fsToolsLayer({ root }, mode)

const call = callTool

/** The text of a successful call; fails the test on an error result. */
const ok = (name: string, args: unknown) =>
  Effect.map(call(name, args), (result) => {
    expect(result.isError, result.content).toBe(false)
    return result.content
  })

/** The text of an error result; fails the test on success. */
const err = (name: string, args: unknown) =>
  Effect.map(call(name, args), (result) => {
    expect(result.isError, result.content).toBe(true)
    return result.content
  })

const lines = (count: number, label = "line"): string =>
  Array.from({ length: count }, (_, i) => `${label} ${i + 1}\n`).join("")

describe("fs_read", () => {
  it.effect("reads in byte mode by default, every line numbered, with the total line count", () => {
    const { root } = fixture({ "a.txt": "one\ntwo\nthree\n" })
    return Effect.gen(function*() {
      expect(yield* ok("fs_read", { path: "/a.txt" })).toBe(
        "/a.txt (3 lines, 14 bytes), bytes 0-13:\n1|one\n2|two\n3|three"
      )
      expect(yield* ok("fs_read", { path: "a.txt", line_numbers: false })).toBe(
        "/a.txt (3 lines, 14 bytes), bytes 0-13:\none\ntwo\nthree"
      )
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("counts a last line without a newline, and says when a file is empty", () => {
    const { root } = fixture({ "a.txt": "one\ntwo", "empty.txt": "" })
    return Effect.gen(function*() {
      expect(yield* ok("fs_read", { path: "/a.txt" })).toBe("/a.txt (2 lines, 7 bytes), bytes 0-6:\n1|one\n2|two")
      expect(yield* ok("fs_read", { path: "/a.txt", start_line: 2 })).toBe("/a.txt (2 lines, 7 bytes), lines 2-2:\n2|two")
      expect(yield* ok("fs_read", { path: "/empty.txt" })).toBe("/empty.txt: empty file (0 lines, 0 bytes)")
      expect(yield* ok("fs_read", { path: "/empty.txt", start_line: 1 })).toBe("/empty.txt: empty file (0 lines, 0 bytes)")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("reads 200 lines by default in line mode, and says how to read on", () => {
    const { root } = fixture({ "long.txt": lines(500) })
    return Effect.gen(function*() {
      const out = (yield* ok("fs_read", { path: "/long.txt", start_line: 1 })).split("\n")
      expect(out[0]).toBe("/long.txt (500 lines, 4392 bytes), lines 1-200:")
      expect(out[1]).toBe("1|line 1")
      expect(out[200]).toBe("200|line 200")
      expect(out[201]).toBe("[cut: more lines follow (201-500); continue with start_line=201]")
      expect(out).toHaveLength(202)
      const tail = (yield* ok("fs_read", { path: "/long.txt", start_line: 451, limit: 100 })).split("\n")
      expect(tail[0]).toBe("/long.txt (500 lines, 4392 bytes), lines 451-500:")
      expect(tail.at(-1)).toBe("500|line 500")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("clamps line mode to 2000 lines", () => {
    const { root } = fixture({ "long.txt": lines(3000) })
    return Effect.gen(function*() {
      const out = (yield* ok("fs_read", { path: "/long.txt", start_line: 10, limit: 5000 })).split("\n")
      expect(out[0]).toContain("lines 10-2009:")
      expect(out[2000]).toBe("2009|line 2009")
      expect(out).toContain("[5000 lines asked for; 2000 is the most one call gives, so 2000 it is]")
      expect(out.at(-1)).toBe("[cut: more lines follow (2010-3000); continue with start_line=2010]")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("reads 64 KiB by default in byte mode, ending on a line boundary, and clamps to 1 MiB", () => {
    const text = lines(20_000, "a fairly long line of text") // about 590 KB
    const { root } = fixture({ "big.txt": text, "huge.txt": "x".repeat(1_500_000) })
    return Effect.gen(function*() {
      const out = (yield* ok("fs_read", { path: "/big.txt" })).split("\n")
      const header = out[0] ?? ""
      const last = out.at(-1) ?? ""
      // Each line is 28 to 32 bytes; the window stops at the last whole line before 65536.
      const end = Number(header.slice(header.indexOf("bytes 0-") + 8, -1)) + 1
      expect(end).toBeLessThanOrEqual(65_536)
      expect(end).toBeGreaterThan(65_536 - 40)
      expect(text[end - 1]).toBe("\n")
      const shownLines = out.length - 2
      expect(out[shownLines]).toBe(`${shownLines}|a fairly long line of text ${shownLines}`)
      expect(last).toBe(
        `[cut: ${text.length - end} more bytes; continue with offset=${end} or start_line=${shownLines + 1}]`
      )
      // Reading on from the offset continues the numbering.
      const next = (yield* ok("fs_read", { path: "/big.txt", offset: end, limit: 100 })).split("\n")
      expect(next[1]).toBe(`${shownLines + 1}|a fairly long line of text ${shownLines + 1}`)

      const huge = (yield* ok("fs_read", { path: "/huge.txt", limit: 5_000_000, line_numbers: false })).split("\n")
      expect(huge[0]).toBe("/huge.txt (1 line, 1500000 bytes), bytes 0-1048575:")
      expect(huge[1]).toHaveLength(1_048_576)
      expect(huge).toContain("[5000000 bytes asked for; 1048576 is the most one call gives, so 1048576 it is]")
      expect(huge.at(-1)).toBe("[cut: 451424 more bytes; continue with offset=1048576]")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("numbers lines from an offset inside a line, and says so", () => {
    const { root } = fixture({ "a.txt": "alpha\nbravo\ncharlie\n" })
    return Effect.gen(function*() {
      expect(yield* ok("fs_read", { path: "/a.txt", offset: 8 })).toBe(
        "/a.txt (3 lines, 20 bytes), bytes 8-19:\n2|avo\n3|charlie\n[offset 8 is inside line 2; its beginning is not shown]"
      )
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("gives no total line count above 8 MiB", () => {
    const { root } = fixture({ "big.log": lines(900_000, "log entry") }) // about 12.5 MB
    return Effect.gen(function*() {
      const out = (yield* ok("fs_read", { path: "/big.log", start_line: 5, limit: 2 })).split("\n")
      expect(out[0]).toMatch(/^\/big\.log \(over 8 MiB, lines not counted, \d+ bytes\), lines 5-6:$/)
      expect(out.slice(1)).toEqual(["5|log entry 5", "6|log entry 6", "[cut: more lines follow; continue with start_line=7]"])
      const bytes = (yield* ok("fs_read", { path: "/big.log", limit: 30 })).split("\n")
      expect(bytes[0]).toMatch(/^\/big\.log \(over 8 MiB, lines not counted, \d+ bytes\), bytes 0-\d+:$/)
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("teaches on bad positions, directories and binary files", () => {
    const { root } = fixture({ "a.txt": "one\ntwo\n", "bin.dat": new Uint8Array([1, 0, 2, 3]), "dir/x.txt": "x" })
    return Effect.gen(function*() {
      expect(yield* err("fs_read", { path: "/a.txt", start_line: 5 })).toBe(
        "fs_read: start_line 5 is past the end of /a.txt, which has 2 lines. Use start_line between 1 and 2."
      )
      expect(yield* err("fs_read", { path: "/a.txt", offset: 8 })).toBe(
        "fs_read: offset 8 is at or past the end of /a.txt (8 bytes). Use an offset below 8, or start_line for line mode."
      )
      expect(yield* err("fs_read", { path: "/a.txt", offset: 1, start_line: 1 })).toContain(
        "give start_line (line mode) or offset (byte mode), not both"
      )
      expect(yield* err("fs_read", { path: "/dir" })).toBe(
        "fs_read: /dir is a directory, not a text file. See what a directory holds with fs_list."
      )
      expect(yield* err("fs_read", { path: "/missing.txt" })).toBe(
        "fs_read: /missing.txt: no such file or directory. Check the name with fs_list on the parent directory, or search for it with fs_glob."
      )
      expect(yield* err("fs", { action: "read", path: "/missing.txt" })).toBe(
        `fs: /missing.txt: no such file or directory. Check the name with fs(action="list") on the parent directory, or search for it with fs(action="glob").`
      )
      expect(yield* ok("fs_read", { path: "/bin.dat" })).toBe("/bin.dat: binary file (4 bytes), not shown: this tool reads text.")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("sees binary content after a text head, in the part it would show", () => {
    // 10 KiB of text (lines 1-1024), then bytes with NULs on line 1025: the first 8 KiB alone look like text.
    const head = Buffer.from(Array.from({ length: 1024 }, (_, i) => `line ${String(i + 1).padStart(4, "0")}\n`).join(""))
    const tail = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 0x0a, 0x41])
    const { root } = fixture({ "mixed.bin": Buffer.concat([head, tail]) })
    const size = head.length + tail.length
    return Effect.gen(function*() {
      expect(head.length).toBe(10_240)
      expect(yield* ok("fs_read", { path: "/mixed.bin", start_line: 1000, limit: 50 })).toBe(
        `/mixed.bin: binary content (a NUL byte) in line 1025 of this ${size} bytes file, not shown: this tool reads text. ` +
          "Lines 1000-1024 read as text with start_line=1000 limit=25."
      )
      expect(yield* ok("fs_read", { path: "/mixed.bin", start_line: 1025 })).toBe(
        `/mixed.bin: binary content (a NUL byte) in line 1025 of this ${size} bytes file, not shown: this tool reads text.`
      )
      // Byte mode checks all it would show, not its first 8 KiB.
      expect(yield* ok("fs_read", { path: "/mixed.bin" })).toBe(`/mixed.bin: binary file (${size} bytes), not shown: this tool reads text.`)
      // The text before it still reads as text.
      const text = yield* ok("fs_read", { path: "/mixed.bin", start_line: 1000, limit: 25 })
      expect(text.split("\n").slice(-2)).toEqual([
        "1024|line 1024",
        "[cut: more lines follow (1025-1026); continue with start_line=1025]"
      ])
      expect(text).not.toContain("\u0000")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("reads the same through fs_read and fs(action=read)", () => {
    const { root } = fixture({ "a.txt": lines(50) })
    return Effect.gen(function*() {
      const split = yield* ok("fs_read", { path: "/a.txt", start_line: 7, limit: 3 })
      expect(yield* ok("fs", { action: "read", path: "/a.txt", start_line: 7, limit: 3 })).toBe(split)
      expect(yield* ok("fs", { path: "/a.txt", start_line: 7, limit: 3 })).toBe(split) // action inferred
    }).pipe(Effect.provide(tools(root)))
  })
})

describe("fs_write", () => {
  it.effect("creates missing parent directories and reports the bytes written", () => {
    const { root } = fixture()
    return Effect.gen(function*() {
      expect(yield* ok("fs_write", { path: "/deep/er/notes.md", content: "# Notes\nhi\n" })).toBe(
        "wrote 11 bytes (2 lines) to /deep/er/notes.md (new file; created /deep/er)"
      )
      expect(readFileSync(path.join(root, "deep", "er", "notes.md"), "utf8")).toBe("# Notes\nhi\n")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("replaces a whole file atomically: renamed into place, no temporary left behind", () => {
    const { root } = fixture({ "a.txt": "old content\n" })
    const before = statSync(path.join(root, "a.txt")).ino
    return Effect.gen(function*() {
      expect(yield* ok("fs_write", { path: "a.txt", content: "new\n" })).toBe(
        "wrote 4 bytes (1 line) to /a.txt (replaced 12 bytes)"
      )
      expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("new\n")
      expect(statSync(path.join(root, "a.txt")).ino).not.toBe(before)
      expect(readdirSync(root)).toEqual(["a.txt"])
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("refuses to write over a directory", () => {
    const { root } = fixture({ "dir/x.txt": "x" })
    return Effect.gen(function*() {
      expect(yield* err("fs_write", { path: "/dir", content: "x" })).toBe(
        `fs_write: /dir is a directory; write needs a file path inside it, such as "/dir/file.txt".`
      )
      expect(readdirSync(path.join(root, "dir"))).toEqual(["x.txt"])
    }).pipe(Effect.provide(tools(root)))
  })
})

describe("fs_edit", () => {
  const five = "one\ntwo\nthree\nfour\nfive\n"

  it.effect("replaces lines start_line..end_line and shows the new lines", () => {
    const { root } = fixture({ "a.txt": five })
    return Effect.gen(function*() {
      expect(yield* ok("fs_edit", { path: "/a.txt", start_line: 2, end_line: 3, content: "TWO\nTHREE\nMORE\n" })).toBe(
        "edited /a.txt: replaced lines 2-3 (2 lines) with 3 lines; it now has 6 lines (was 5).\n" +
          "lines 2-4 now:\n2|TWO\n3|THREE\n4|MORE"
      )
      expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("one\nTWO\nTHREE\nMORE\nfour\nfive\n")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("inserts with end_line = start_line - 1, appends, and deletes with empty content", () => {
    const { root } = fixture({ "a.txt": five })
    const file = path.join(root, "a.txt")
    return Effect.gen(function*() {
      expect(yield* ok("fs_edit", { path: "/a.txt", start_line: 1, end_line: 0, content: "zero" })).toBe(
        "edited /a.txt: inserted 1 line before line 1; it now has 6 lines (was 5).\nlines 1-1 now:\n1|zero"
      )
      expect(yield* ok("fs_edit", { path: "/a.txt", start_line: 7, end_line: 6, content: "six\nseven" })).toContain(
        "appended 2 lines after line 6; it now has 8 lines (was 6)"
      )
      expect(yield* ok("fs_edit", { path: "/a.txt", start_line: 2, end_line: 3, content: "" })).toBe(
        "edited /a.txt: deleted lines 2-3 (2 lines); it now has 6 lines (was 8)."
      )
      expect(readFileSync(file, "utf8")).toBe("zero\nthree\nfour\nfive\nsix\nseven\n")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("keeps CRLF line endings and a missing final newline", () => {
    const { root } = fixture({ "crlf.txt": "a\r\nb\r\nc\r\n", "open.txt": "a\nb" })
    return Effect.gen(function*() {
      yield* ok("fs_edit", { path: "/crlf.txt", start_line: 2, end_line: 2, content: "B1\nB2" })
      expect(readFileSync(path.join(root, "crlf.txt"), "utf8")).toBe("a\r\nB1\r\nB2\r\nc\r\n")
      yield* ok("fs_edit", { path: "/open.txt", start_line: 3, end_line: 2, content: "c" })
      expect(readFileSync(path.join(root, "open.txt"), "utf8")).toBe("a\nb\nc")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("teaches on ranges outside the file and writes nothing", () => {
    const { root } = fixture({ "a.txt": five })
    return Effect.gen(function*() {
      expect(yield* err("fs_edit", { path: "/a.txt", start_line: 8, end_line: 8, content: "x" })).toBe(
        "fs_edit: start_line 8 is past the end of /a.txt, which has 5 lines. Use start_line 1..6; start_line=6 with end_line=5 appends. Read the lines first with fs_read to see their numbers."
      )
      expect(yield* err("fs_edit", { path: "/a.txt", start_line: 4, end_line: 2, content: "x" })).toContain(
        "end_line 2 is before start_line 4. To replace lines give end_line >= start_line; to insert before line 4 give end_line=3."
      )
      expect(yield* err("fs_edit", { path: "/a.txt", start_line: 4, end_line: 9, content: "x" })).toContain(
        "end_line 9 is past the end of /a.txt, which has 5 lines. Use end_line <= 5."
      )
      expect(yield* err("fs_edit", { path: "/a.txt", start_line: 2, end_line: 1, content: "" })).toContain(
        "nothing to do"
      )
      expect(yield* err("fs_edit", { path: "/new.txt", start_line: 1, end_line: 0, content: "x" })).toContain(
        "/new.txt: no such file or directory"
      )
      expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe(five)
      expect(existsSync(path.join(root, "new.txt"))).toBe(false)
    }).pipe(Effect.provide(tools(root)))
  })
})

describe("fs_list, fs_glob, fs_grep", () => {
  const tree = {
    "README.md": "# Title\nTODO: write\n",
    "src/app.ts": "export const app = 1\n// todo lower\n",
    "src/lib/util.ts": "export function util() {}\n",
    "src/lib/notes.md": "nothing here\n",
    ".hidden/config.ts": "const secret = 1\n"
  }

  it.effect("lists a directory sorted, with type, size and name", () => {
    const { root } = fixture(tree)
    return Effect.gen(function*() {
      expect(yield* ok("fs_list", {})).toBe(
        "/ (3 entries):\ndir    -  .hidden/\nfile  20  README.md\ndir    -  src/"
      )
      expect(yield* ok("fs_list", { path: "/src" })).toBe("/src (2 entries):\nfile  35  app.ts\ndir    -  lib/")
      mkdirSync(path.join(root, "empty"))
      expect(yield* ok("fs", { action: "list", path: "empty" })).toBe("/empty (0 entries): empty directory")
      expect(yield* err("fs_list", { path: "/README.md" })).toBe(
        "fs_list: /README.md: is not a directory. Give a directory; read a file with fs_read."
      )
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("globs at any depth without a slash, relative to path with one, and caps the results", () => {
    const { root } = fixture(tree)
    return Effect.gen(function*() {
      expect(yield* ok("fs_glob", { pattern: "*.ts" })).toBe(
        `3 files match "*.ts" under /:\n/.hidden/config.ts\n/src/app.ts\n/src/lib/util.ts`
      )
      expect(yield* ok("fs_glob", { pattern: "lib/*.{md,ts}", path: "/src" })).toBe(
        `2 files match "lib/*.{md,ts}" under /src:\n/src/lib/notes.md\n/src/lib/util.ts`
      )
      expect(yield* ok("fs_glob", { pattern: "/src/**/*.md", path: "/src/lib" })).toBe(
        `1 file matches "/src/**/*.md" under /src/lib:\n/src/lib/notes.md`
      )
      expect(yield* ok("fs_glob", { pattern: "!*.ts" })).toBe(
        `2 files match "!*.ts" under /:\n/README.md\n/src/lib/notes.md`
      )
      expect(yield* ok("fs_glob", { pattern: "**", max_results: 2 })).toBe(
        `5 files match "**" under /:\n/.hidden/config.ts\n/README.md\n[capped at 2 of 5 matches; narrow the pattern or path, or raise max_results (max 2000)]`
      )
      expect(yield* ok("fs_glob", { pattern: "*.py" })).toContain(`no files match "*.py" under / (5 files searched).`)
      expect(yield* err("fs_glob", { pattern: "!(*.ts)" })).toContain("uses a feature not supported here")
      expect(yield* err("fs_glob", { pattern: "*", path: "/nope" })).toContain("/nope: no such file or directory")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("greps lines as path:line:text, in a directory, a glob or one file", () => {
    const { root } = fixture(tree)
    return Effect.gen(function*() {
      expect(yield* ok("fs_grep", { pattern: "TODO" })).toBe(
        `1 match for "TODO" in 1 file (5 files searched under /):\n/README.md:2:TODO: write`
      )
      expect(yield* ok("fs_grep", { pattern: "todo", ignore_case: true })).toBe(
        `2 matches for "todo" in 2 files (5 files searched under /):\n/README.md:2:TODO: write\n/src/app.ts:2:// todo lower`
      )
      expect(yield* ok("fs_grep", { pattern: "^export (const|function)", glob: "*.ts", path: "/src" })).toBe(
        `2 matches for "^export (const|function)" in 2 files (2 files searched under /src):\n` +
          "/src/app.ts:1:export const app = 1\n/src/lib/util.ts:1:export function util() {}"
      )
      expect(yield* ok("fs_grep", { pattern: "e", path: "/src/lib/notes.md" })).toBe(
        `1 match for "e" in 1 file (1 file searched under /src/lib/notes.md):\n/src/lib/notes.md:1:nothing here`
      )
      expect(yield* ok("fs_grep", { pattern: "zebra" })).toBe(`no matches for "zebra" (5 files searched under /)`)
      expect(yield* ok("fs", { pattern: "secret" })).toContain("/.hidden/config.ts:1:const secret = 1") // inferred grep
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("caps matches, bytes scanned per file, and cuts long lines around the match", () => {
    const { root } = fixture({
      "many.txt": lines(300, "hit"),
      "big.txt": `${"filler line\n".repeat(100_000)}needle\n`, // the needle lies past 1 MiB
      "wide.txt": `${"x".repeat(1000)}NEEDLE${"y".repeat(1000)}\n`,
      "bin.dat": new Uint8Array([110, 101, 101, 100, 108, 101, 0])
    })
    return Effect.gen(function*() {
      const capped = (yield* ok("fs_grep", { pattern: "hit", path: "/many.txt", max_results: 5 })).split("\n")
      expect(capped).toHaveLength(7)
      expect(capped.at(-1)).toBe(
        "[stopped at 5 matches; there may be more: narrow the pattern, path or glob, or raise max_results (max 1000)]"
      )
      expect(yield* ok("fs_grep", { pattern: "needle" })).toBe(
        `no matches for "needle" (4 files searched under /)\n` +
          "[only the first 1048576 bytes of 1 file were searched: /big.txt]\n[1 binary file skipped]"
      )
      const wide = yield* ok("fs_grep", { pattern: "NEEDLE" })
      const line = wide.split("\n")[1] ?? ""
      expect(line.startsWith("/wide.txt:1:…x")).toBe(true)
      expect(line).toContain("NEEDLE")
      expect(line.endsWith("y…")).toBe(true)
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("runs a catastrophic-backtracking pattern in linear time", () => {
    const { root } = fixture({ "evil.txt": `${"a".repeat(100_000)}b\n` })
    return Effect.gen(function*() {
      expect(yield* ok("fs_grep", { pattern: "(a+)+$", path: "/evil.txt" })).toBe(
        `no matches for "(a+)+$" (1 file searched under /evil.txt)`
      )
      expect(yield* ok("fs_grep", { pattern: "(a+)+b$" })).toContain("1 match")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("teaches on an invalid pattern", () => {
    const { root } = fixture(tree)
    return Effect.gen(function*() {
      const message = yield* err("fs_grep", { pattern: "(abc" })
      expect(message).toContain(`fs_grep: invalid pattern "(abc": error parsing regexp: missing closing ): \`(abc\``)
      expect(message).toContain("RE2 syntax")
      expect(yield* err("fs_grep", { pattern: "(?<=a)b" })).toContain("invalid pattern")
      expect(yield* err("fs_grep", { pattern: "x".repeat(1001) })).toContain(
        "the pattern is 1001 characters long; at most 1000 are accepted"
      )
    }).pipe(Effect.provide(tools(root)))
  })
})

describe("fs_check_path, fs_cwd, fs_sandbox", () => {
  it.effect("tells what a path is, or that it does not exist", () => {
    const { root } = fixture({ "src/a.txt": "abc" })
    return Effect.gen(function*() {
      expect(yield* ok("fs_check_path", { path: "/src/a.txt" })).toMatch(
        /^\/src\/a\.txt: a file of 3 bytes, modified \d{4}-\d\d-\d\dT/
      )
      expect(yield* ok("fs_check_path", { path: "src" })).toBe("/src: a directory")
      expect(yield* ok("fs_check_path", { path: "/src/b.txt" })).toBe(
        "/src/b.txt: does not exist (its parent directory /src exists)"
      )
      expect(yield* ok("fs_check_path", { path: "/x/y" })).toBe("/x/y: does not exist (its parent /x does not exist either)")
    }).pipe(Effect.provide(tools(root)))
  })

  it.effect("tells the working directory, inside the sandbox or not", () => {
    const { root } = fixture({ "sub/a.txt": "a" })
    const original = process.cwd()
    return Effect.gen(function*() {
      expect(yield* ok("fs_cwd", {})).toBe(
        `the working directory is outside the sandbox: ${original} on disk. fs paths are resolved against the sandbox root "/" (${root} on disk), not against it.`
      )
      process.chdir(path.join(root, "sub"))
      expect(yield* ok("fs", { action: "cwd" })).toBe(
        `the working directory is /sub (inside the sandbox; on disk ${path.join(root, "sub")})`
      )
    }).pipe(
      Effect.ensuring(Effect.sync(() => process.chdir(original))),
      Effect.provide(tools(root))
    )
  })

  it.effect("tells the sandbox root on disk", () => {
    const { root } = fixture()
    return Effect.gen(function*() {
      const answer = yield* ok("fs_sandbox", {})
      expect(answer.startsWith(`the sandbox root is ${root} on disk;`)).toBe(true)
      expect(yield* ok("fs", { action: "sandbox" })).toBe(answer)
    }).pipe(Effect.provide(tools(root)))
  })
})

describe("path escapes", () => {
  const everyTool = (p: string): ReadonlyArray<readonly [string, Record<string, unknown>]> => [
    ["fs_read", { path: p }],
    ["fs_write", { path: p, content: "pwned\n" }],
    ["fs_edit", { path: p, start_line: 1, end_line: 1, content: "pwned" }],
    ["fs_list", { path: p }],
    ["fs_glob", { pattern: "*", path: p }],
    ["fs_grep", { pattern: "secret", path: p }],
    ["fs_check_path", { path: p }],
    ["fs", { action: "read", path: p }],
    ["fs", { action: "write", path: p, content: "pwned\n" }],
    ["fs", { action: "ops", ops: [{ action: "write", path: p, content: "pwned\n" }] }]
  ]

  it.effect("refuses .., NUL bytes and links leading outside, in every tool, touching nothing outside", () => {
    const { base, outside, root } = fixture({ "inside.txt": "inside\n" })
    symlinkSync(outside, path.join(root, "out"))
    symlinkSync(path.join(outside, "secret.txt"), path.join(root, "secret-link"))
    return Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["../x", `path "../x" climbs above the sandbox root "/"`],
        ["/../../etc/passwd", `path "/../../etc/passwd" climbs above the sandbox root "/"`],
        ["inside.txt\u0000.png", "contains a NUL byte"],
        ["/out/secret.txt", "leads through a symbolic link outside the sandbox"],
        ["/out", "leads through a symbolic link outside the sandbox"],
        ["/secret-link", "leads through a symbolic link outside the sandbox"]
      ]
      for (const [bad, reason] of cases) {
        for (const [name, args] of everyTool(bad)) {
          const result = yield* call(name, args)
          expect(result.isError, `${name} ${JSON.stringify(args)}: ${result.content}`).toBe(true)
          expect(result.content).toContain(reason)
          expect(result.content).not.toContain("secret\n")
        }
      }
      expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("secret\n")
      expect(readdirSync(outside)).toEqual(["secret.txt"])
      expect(readdirSync(base).sort()).toEqual(["outside", "root"])
      expect(existsSync("/etc/passwd") ? readFileSync("/etc/passwd", "utf8") : "").not.toContain("pwned")
      // Searching the whole sandbox does not follow the links either.
      expect(yield* ok("fs_grep", { pattern: "secret" })).toBe(`no matches for "secret" (1 file searched under /)`)
      expect(yield* ok("fs_glob", { pattern: "**" })).toBe(`1 file matches "**" under /:\n/inside.txt`)
      expect(yield* err("fs_read", { path: "../x" })).toBe(
        `fs_read: path "../x" climbs above the sandbox root "/". "/" is the sandbox root and ".." cannot climb above it. Use a path inside it, such as "/notes.txt" or "src/app.ts".`
      )
    }).pipe(Effect.provide(tools(root)))
  })
})

describe("tool modes", () => {
  const visible = (mode: ToolMode) =>
    Effect.flatMap(ToolRegistry, (registry) => registry.specs).pipe(Effect.provide(tools(fixture().root, mode)))
  const split = ["fs_read", "fs_write", "fs_edit", "fs_list", "fs_glob", "fs_grep", "fs_check_path", "fs_cwd", "fs_sandbox"]

  it.effect("shows the split tools by default, the fs tool in unified mode, and all in both", () =>
    Effect.gen(function*() {
      expect((yield* visible("split")).map((spec) => spec.name)).toEqual(split)
      expect((yield* visible("unified")).map((spec) => spec.name)).toEqual(["fs"])
      expect((yield* visible("both")).map((spec) => spec.name)).toEqual([...split, "fs"])
      const registry = yield* Effect.provide(ToolRegistry, tools(fixture().root, "split"))
      expect((yield* registry.call(new ToolCall({ id: "c", name: "fs", arguments: "{}" }))).content).toContain(
        "unknown tool: fs."
      )
      const unified = yield* Effect.provide(ToolRegistry, tools(fixture().root, "unified"))
      expect((yield* unified.call(new ToolCall({ id: "c", name: "fs_read", arguments: "{}" }))).isError).toBe(true)
    }))

  it.effect("ships rich descriptions: purpose, Required/Optional parameters, output, examples, errors", () =>
    Effect.gen(function*() {
      const specs = yield* visible("both")
      for (const spec of specs) {
        expect(spec.shortDescription).not.toContain("\n")
        expect(spec.description).toContain("Output:")
        expect(spec.description).toContain("Errors:")
        expect(spec.description).toContain("{")
        const properties = spec.parameters["properties"]
        for (const property of Object.values(typeof properties === "object" && properties !== null ? properties : {})) {
          const text = String((property as { readonly description?: unknown }).description) // test boundary: JSON Schema node
          expect(text.startsWith("Required") || text.startsWith("Optional") || text.startsWith("Used by")).toBe(true)
        }
      }
      const read = specs.find((spec) => spec.name === "fs_read")
      expect(read?.description).toContain("before calling fs_edit")
      expect(read?.parameters["required"]).toEqual(["path"])
      const unified = specs.find((spec) => spec.name === "fs")
      expect(unified?.description).toContain(`action="ops"`)
      expect(unified?.description).toContain(`before calling fs(action="edit")`)
      expect(unified?.parameters["required"]).toEqual(["action"])
    }))

  it.effect("infers a missing action when the parameters make it clear, and teaches otherwise", () => {
    const { root } = fixture({ "a.md": "x" })
    return Effect.gen(function*() {
      expect(yield* ok("fs", { path: "/b.txt", content: "b" })).toContain("wrote 1 byte (1 line) to /b.txt")
      expect(yield* ok("fs", { pattern: "*.md" })).toBe(`1 file matches "*.md" under /:\n/a.md`)
      expect(yield* err("fs", { path: "/a.md" })).toContain("action: is missing")
      expect(yield* err("fs", { action: "read" })).toContain(
        `action "read": path: is missing. read takes path (required), start_line, offset, limit, line_numbers. Example: fs({"action": "read", "path": "/src/app.ts"})`
      )
      expect(yield* err("fs", { action: "read", path: "/a.md", content: "x" })).toContain(`content: is not a parameter of this tool`)
    }).pipe(Effect.provide(tools(root)))
  })
})

describe("fs ops", () => {
  const ten = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n"

  it.effect("refuses more than 50 ops and more than 20 distinct files, running nothing", () => {
    const { root } = fixture()
    return Effect.gen(function*() {
      const write = (i: number) => ({ action: "write", path: `/f${i}.txt`, content: "x" })
      expect(yield* err("fs", { action: "ops", ops: Array.from({ length: 51 }, () => ({ action: "cwd" })) })).toBe(
        "fs: ops holds 51 operations; at most 50 are allowed per call. Split the work into several calls of at most 50 ops."
      )
      expect(yield* err("fs", { action: "ops", ops: Array.from({ length: 21 }, (_, i) => write(i)) })).toBe(
        "fs: ops names 21 distinct files; at most 20 are allowed per call (only read, write, edit and check_path ops count). Split the work into several calls."
      )
      expect(readdirSync(root)).toEqual([])
      // 20 files, spelled several ways, plus ops that name no file, are within the caps.
      const report = yield* ok("fs", {
        action: "ops",
        ops: [
          ...Array.from({ length: 20 }, (_, i) => write(i)),
          { action: "check_path", path: "f0.txt" },
          { action: "read", path: "/x/../f1.txt" },
          { action: "list" },
          { action: "glob", pattern: "*.txt" },
          { action: "grep", pattern: "x" },
          { action: "cwd" },
          { action: "sandbox" }
        ]
      })
      expect(report.split("\n")[0]).toMatch(/^batch: 27 ops across 20 files \(\/f0\.txt, \/f1\.txt, .*, \/f19\.txt\)$/)
      expect(report.endsWith("done: 27 ok, 0 failed.")).toBe(true)
    }).pipe(Effect.provide(tools(root, "unified")))
  })

  it.effect("applies same-file edits bottom-up against the original line numbers", () => {
    const { root } = fixture({ "a.txt": ten, "b.txt": "b\n" })
    return Effect.gen(function*() {
      const report = yield* ok("fs", {
        action: "ops",
        ops: [
          { action: "edit", path: "/a.txt", start_line: 2, end_line: 2, content: "TWO\nTWO AND A HALF" },
          { action: "write", path: "/b.txt", content: "bee\n" },
          { action: "edit", path: "a.txt", start_line: 5, end_line: 6, content: "FIVE-SIX" },
          { action: "edit", path: "/a.txt", start_line: 9, end_line: 8, content: "before nine" },
          { action: "edit", path: "/a.txt", start_line: 9, end_line: 9, content: "NINE" }
        ]
      })
      expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe(
        "line 1\nTWO\nTWO AND A HALF\nline 3\nline 4\nFIVE-SIX\nline 7\nline 8\nbefore nine\nNINE\nline 10\n"
      )
      const out = report.split("\n")
      expect(out[0]).toBe("batch: 5 ops across 2 files (/a.txt, /b.txt)")
      expect(out[1]).toBe(
        "[edits to one file ran bottom-up (descending start_line), so each used the original line numbers]"
      )
      expect(out.filter((line) => line.startsWith("["))).toEqual([
        out[1],
        "[5] edit /a.txt: ok",
        "[2] write /b.txt: ok",
        "[4] edit /a.txt: ok",
        "[3] edit /a.txt: ok",
        "[1] edit /a.txt: ok"
      ])
      expect(out.at(-1)).toBe("done: 5 ok, 0 failed.")
    }).pipe(Effect.provide(tools(root, "unified")))
  })

  it.effect("refuses overlapping edits of one file", () => {
    const { root } = fixture({ "a.txt": ten })
    return Effect.gen(function*() {
      expect(
        yield* err("fs", {
          action: "ops",
          ops: [
            { action: "edit", path: "/a.txt", start_line: 2, end_line: 4, content: "x" },
            { action: "edit", path: "/a.txt", start_line: 4, end_line: 5, content: "y" }
          ]
        })
      ).toBe(
        "fs: ops 1 and 2 both edit /a.txt, with overlapping lines 2-4 and lines 4-5. Line numbers in a batch refer to the file before its edits, so overlapping edits are ambiguous: merge them into one edit. Nothing was run."
      )
      expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe(ten)
    }).pipe(Effect.provide(tools(root, "unified")))
  })

  it.effect("clips successful reads to 2 KiB in the report", () => {
    const { root } = fixture({ "big.txt": lines(1000) })
    return Effect.gen(function*() {
      const report = yield* ok("fs", { action: "ops", ops: [{ action: "read", path: "/big.txt" }] })
      const body = report.slice(report.indexOf("[1] read /big.txt: ok\n") + 22, report.indexOf("\n[clipped"))
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(2048)
      expect(Buffer.byteLength(body)).toBeGreaterThan(2000)
      expect(body.startsWith("/big.txt (1000 lines, 8893 bytes), bytes 0-8892:\n1|line 1\n")).toBe(true)
      expect(report).toContain(
        `[clipped to 2048 bytes in the batch report; call fs(action="read") alone for the full text]`
      )
    }).pipe(Effect.provide(tools(root, "unified")))
  })

  it.effect("stops at the first failure by default, showing its full error", () => {
    const { root } = fixture()
    return Effect.gen(function*() {
      const standalone = yield* err("fs", { action: "read", path: "/missing.txt" })
      const result = yield* call("fs", {
        action: "ops",
        ops: [
          { action: "write", path: "/a.txt", content: "a" },
          { action: "read", path: "/missing.txt" },
          { action: "write", path: "/b.txt", content: "b" }
        ]
      })
      expect(result.isError).toBe(true)
      expect(result.content).toBe(
        [
          "batch: 3 ops across 3 files (/a.txt, /missing.txt, /b.txt)",
          "",
          "[1] write /a.txt: ok",
          "wrote 1 byte (1 line) to /a.txt (new file)",
          "",
          "[2] read /missing.txt: error",
          standalone.slice("fs: ".length),
          "",
          "done: 1 ok, 1 failed, 1 not run (op 3): continue_on_error is false, so the batch stopped at the first failure."
        ].join("\n")
      )
      expect(existsSync(path.join(root, "b.txt"))).toBe(false)
    }).pipe(Effect.provide(tools(root, "unified")))
  })

  it.effect("keeps going with continue_on_error", () => {
    const { root } = fixture()
    return Effect.gen(function*() {
      const result = yield* call("fs", {
        action: "ops",
        continue_on_error: true,
        ops: [
          { action: "read", path: "/missing.txt" },
          { action: "edit", path: "/missing.txt", start_line: 1, end_line: 0, content: "x" },
          { action: "write", path: "/b.txt", content: "b" }
        ]
      })
      expect(result.isError).toBe(true)
      expect(result.content).toContain("[3] write /b.txt: ok")
      expect(result.content).toContain("[1] read /missing.txt: error\n/missing.txt: no such file or directory.")
      expect(result.content).toContain("[2] edit /missing.txt: error\n/missing.txt: no such file or directory.")
      expect(result.content.endsWith("done: 1 ok, 2 failed.")).toBe(true)
      expect(readFileSync(path.join(root, "b.txt"), "utf8")).toBe("b")
    }).pipe(Effect.provide(tools(root, "unified")))
  })

  it.effect("refuses a batch with an invalid op, running none of it", () => {
    const { root } = fixture()
    return Effect.gen(function*() {
      const message = yield* err("fs", {
        action: "ops",
        ops: [
          { action: "write", path: "/a.txt", content: "a" },
          { action: "read" },
          { path: "/c.txt" }
        ]
      })
      expect(message).toContain("fs: invalid ops; nothing was run:")
      expect(message).toContain("op 2 (read): path: is missing. read takes path (required), start_line")
      expect(message).toContain("op 3: action is missing; give one of read, write, edit")
      expect(existsSync(path.join(root, "a.txt"))).toBe(false)
      expect(yield* err("fs", { action: "ops", ops: [] })).toContain("ops is empty")
      expect(yield* err("fs", { action: "ops" })).toContain(`action "ops" needs ops`)
    }).pipe(Effect.provide(tools(root, "unified")))
  })
})
