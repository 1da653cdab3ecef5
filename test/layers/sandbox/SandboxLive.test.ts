import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Exit, Fiber } from "effect"
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { Sandbox, SandboxViolation } from "easyai"
import * as SandboxLive from "../../../src/layers/sandbox/SandboxLive.js"
import { goneSoon } from "../../support/processes.js"
import { tempDir } from "../../support/tempDir.js"

/** A sandbox at `<tmp>/user`, with a secret beside it in `<tmp>/userX` and one in `<tmp>`. */
const fixture = () => {
  const base = tempDir()
  const root = path.join(base, "user")
  mkdirSync(root)
  mkdirSync(path.join(base, "userX"))
  writeFileSync(path.join(base, "userX", "secret.txt"), "sibling secret")
  writeFileSync(path.join(base, "secret.txt"), "parent secret")
  writeFileSync(path.join(root, "inside.txt"), "hello\n")
  return { base, root }
}

const withSandbox = <A, E>(
  root: string,
  body: (sandbox: Sandbox["Type"]) => Effect.Effect<A, E>,
  options: Omit<SandboxLive.Options, "root"> = {}
) => Effect.flatMap(Sandbox, body).pipe(Effect.provide(SandboxLive.layer({ root, ...options })))

describe("Sandbox paths", () => {
  it.effect("re-roots absolute paths and normalizes components", () =>
    withSandbox(fixture().root, (sandbox) =>
      Effect.gen(function*() {
        const resolved = yield* sandbox.resolve("/etc/passwd")
        expect(resolved.virtual).toBe("/etc/passwd")
        expect(resolved.real).toBe(path.join(sandbox.root, "etc", "passwd"))
        expect((yield* sandbox.resolve("a/./b//c/../d")).virtual).toBe("/a/b/d")
        expect((yield* sandbox.resolve("")).virtual).toBe("/")
        expect((yield* sandbox.resolve("%2e%2e/x")).real).toBe(path.join(sandbox.root, "%2e%2e", "x"))
      })))

  it.effect("refuses to climb above the root, and NUL bytes", () =>
    withSandbox(fixture().root, (sandbox) =>
      Effect.gen(function*() {
        for (const escape of ["../secret.txt", "/../../etc/passwd", "a/../../secret.txt", ".."]) {
          expect(yield* Effect.flip(sandbox.resolve(escape))).toEqual(new SandboxViolation({ path: escape, reason: "Escape" }))
        }
        const nul = yield* Effect.flip(sandbox.resolve("inside.txt\u0000.png"))
        expect(nul.reason).toBe("NulByte")
      })))

  it.effect("follows symbolic links only while they stay inside, on whole components", () => {
    const { base, root } = fixture()
    symlinkSync(path.join(base, "userX", "secret.txt"), path.join(root, "sibling"))
    symlinkSync(path.join(base, "secret.txt"), path.join(root, "parent"))
    symlinkSync(base, path.join(root, "up"))
    symlinkSync(path.join(root, "inside.txt"), path.join(root, "alias"))
    return withSandbox(root, (sandbox) =>
      Effect.gen(function*() {
        for (const link of ["sibling", "parent", "up/secret.txt", "up/userX/secret.txt", "up/new-file.txt"]) {
          const error = yield* Effect.flip(sandbox.readFile(link, 1024))
          expect(error._tag === "SandboxViolation" && error.reason, link).toBe("SymlinkEscape")
        }
        expect(Either.isLeft(yield* Effect.either(sandbox.writeFile("up/planted.txt", "x")))).toBe(true)
        expect(Either.isLeft(yield* Effect.either(sandbox.list("up", 10)))).toBe(true)
        expect(new TextDecoder().decode(yield* sandbox.readFile("alias", 1024))).toBe("hello\n")
        expect(existsSync(path.join(base, "planted.txt"))).toBe(false)
        expect(readFileSync(path.join(base, "secret.txt"), "utf8")).toBe("parent secret")
      }))
  })
})

describe.each([
  ["relative to opened directories", true],
  ["by path, where there is no /proc", false]
])("Sandbox links inside the root, walked %s", (_, descriptorWalk) => {
  it.effect("are walked from the root: relative, absolute, through .., to directories, and loops end", () => {
    const { base, root } = fixture()
    mkdirSync(path.join(root, "real", "deep"), { recursive: true })
    writeFileSync(path.join(root, "real", "deep", "f.txt"), "deep\n")
    symlinkSync("../inside.txt", path.join(root, "real", "up-alias")) // relative, climbing inside the root
    symlinkSync(path.join(root, "real"), path.join(root, "dir-alias")) // absolute, to a directory
    symlinkSync("dir-alias/deep/../../inside.txt", path.join(root, "winding")) // .. taken after the link, physically
    symlinkSync("dir-alias/../../secret.txt", path.join(root, "sneaky")) // .. above the root through a link
    symlinkSync("loop-b", path.join(root, "loop-a"))
    symlinkSync("loop-a", path.join(root, "loop-b"))
    symlinkSync(path.join(base, "userX", "secret.txt"), path.join(root, "up-and-out"))
    return withSandbox(root, (sandbox) =>
      Effect.gen(function*() {
        const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
        expect(text(yield* sandbox.readFile("/real/up-alias", 100))).toBe("hello\n")
        expect(text(yield* sandbox.readFile("/dir-alias/deep/f.txt", 100))).toBe("deep\n")
        expect(text(yield* sandbox.readFile("/winding", 100))).toBe("hello\n")
        expect(yield* sandbox.stat("/dir-alias")).toMatchObject({ path: "/dir-alias", type: "Directory" })
        expect((yield* sandbox.list("/dir-alias", 10)).entries.map((entry) => entry.name)).toEqual(["deep", "up-alias"])
        yield* sandbox.writeFile("/dir-alias/deep/new.txt", "new\n")
        expect(readFileSync(path.join(root, "real", "deep", "new.txt"), "utf8")).toBe("new\n")
        // Writing to a link that stays inside replaces the file it points at, and keeps the link.
        yield* sandbox.writeFile("/real/up-alias", "rewritten\n")
        expect(readFileSync(path.join(root, "inside.txt"), "utf8")).toBe("rewritten\n")
        expect(yield* Effect.flip(sandbox.readFile("/sneaky", 100))).toMatchObject({ reason: "SymlinkEscape" })
        expect(yield* Effect.flip(sandbox.writeFile("/sneaky", "x"))).toMatchObject({ reason: "SymlinkEscape" })
        expect(readFileSync(path.join(base, "secret.txt"), "utf8")).toBe("parent secret")
        expect(yield* Effect.flip(sandbox.readFile("/loop-a", 100))).toMatchObject({
          _tag: "FileError",
          reason: "Io",
          detail: "too many levels of symbolic links"
        })
        expect(yield* Effect.flip(sandbox.readFile("/up-and-out", 100))).toMatchObject({ reason: "SymlinkEscape" })
      }), { descriptorWalk })
  })
})

describe("Sandbox files", () => {
  it.effect("writes atomically, creating parent directories, leaving no temporary file", () => {
    const { root } = fixture()
    return withSandbox(root, (sandbox) =>
      Effect.gen(function*() {
        yield* sandbox.writeFile("/docs/deep/note.md", "# note\n")
        yield* sandbox.writeFile("/docs/deep/note.md", "# replaced\n")
        expect(readFileSync(path.join(root, "docs/deep/note.md"), "utf8")).toBe("# replaced\n")
        expect(readdirSync(path.join(root, "docs/deep"))).toEqual(["note.md"])
        const info = yield* sandbox.stat("/docs/deep/note.md")
        expect(info).toMatchObject({ path: "/docs/deep/note.md", type: "File", size: 11 })
      }))
  })

  it.effect("reports missing files, directories and oversize reads as typed errors", () =>
    withSandbox(fixture().root, (sandbox) =>
      Effect.gen(function*() {
        expect(yield* Effect.flip(sandbox.readFile("/missing.txt", 10))).toMatchObject({ _tag: "FileError", reason: "NotFound" })
        yield* sandbox.writeFile("/dir/file.txt", "x")
        expect(yield* Effect.flip(sandbox.readFile("/dir", 10))).toMatchObject({ reason: "NotAFile" })
        expect(yield* Effect.flip(sandbox.readFile("/inside.txt", 3))).toMatchObject({ reason: "TooLarge" })
        expect(yield* Effect.flip(sandbox.writeFile("/", "x"))).toMatchObject({ reason: "NotAFile" })
      })))

  it.effect("reads ranges, lists and walks without following links", () => {
    const { base, root } = fixture()
    mkdirSync(path.join(root, "src"))
    writeFileSync(path.join(root, "src", "b.ts"), "b")
    writeFileSync(path.join(root, "src", "a.ts"), "a")
    symlinkSync(base, path.join(root, "src", "escape"))
    return withSandbox(root, (sandbox) =>
      Effect.gen(function*() {
        const range = yield* sandbox.readRange("/inside.txt", 1, 3)
        expect(new TextDecoder().decode(range.bytes)).toBe("ell")
        expect(range.size).toBe(6)
        expect((yield* sandbox.list("/src", 10)).entries.map((e) => [e.name, e.type])).toEqual([
          ["a.ts", "File"],
          ["b.ts", "File"],
          ["escape", "Other"]
        ])
        expect(yield* sandbox.walk("/", 100)).toEqual(["/inside.txt", "/src/a.ts", "/src/b.ts"])
        expect(yield* sandbox.walk("/", 2)).toEqual(["/inside.txt", "/src/a.ts"])
      }))
  })
})

describe("Sandbox processes", () => {
  const spec = {
    env: { PATH: "/usr/bin:/bin" },
    timeout: Duration.seconds(10),
    killGrace: Duration.millis(300),
    maxOutputBytes: 1024,
    stderr: "merge" as "merge" | "discard"
  }
  const sh = (script: string, more: Partial<typeof spec> = {}) => ({ ...spec, ...more, command: "/bin/sh", args: ["-c", script] })

  it.live("runs in the root with a clean environment and closed stdin", () =>
    withSandbox(fixture().root, (sandbox) =>
      Effect.gen(function*() {
        const result = yield* sandbox.run(sh("pwd; env | sort; cat; echo done 1>&2; exit 3"))
        expect(result.exitCode).toBe(3)
        expect(result.output.split("\n")[0]).toBe(sandbox.root)
        expect(result.output).not.toContain("HOME=")
        expect(result.output).toContain("PATH=/usr/bin:/bin")
        expect(result.output.trim().endsWith("done")).toBe(true)
        const quiet = yield* sandbox.run(sh("echo out; echo err 1>&2", { stderr: "discard" }))
        expect(quiet.output).toBe("out\n")
      })))

  it.live("caps output and keeps draining so the child never blocks", () =>
    withSandbox(fixture().root, (sandbox) =>
      Effect.gen(function*() {
        const result = yield* sandbox.run(sh("head -c 300000 /dev/zero | tr '\\0' x; echo; echo finished 1>&2"))
        expect(result.exitCode).toBe(0)
        expect(result.timedOut).toBe(false)
        expect(result.output.length).toBe(1024)
        expect(result.droppedBytes).toBe(300000 + 1 + "finished\n".length - 1024)
      })))

  it.live("kills a process that ignores SIGTERM, and its grandchildren, at the timeout (isolate off: the pids are the host's)", () => {
    const { root } = fixture()
    return withSandbox(root, (sandbox) =>
      Effect.gen(function*() {
        const result = yield* sandbox.run(
          sh("trap '' TERM; sleep 30 & echo $! > grandchild.pid; while :; do :; done", { timeout: Duration.millis(500) })
        )
        expect(result.timedOut).toBe(true)
        expect(result.signal).toBe("SIGKILL")
        const grandchild = Number(readFileSync(path.join(root, "grandchild.pid"), "utf8"))
        expect(yield* goneSoon(grandchild)).toBe(true)
      }), { isolate: "off" })
  })

  it.live("leaves no background process behind when the command ends (isolate off: the pids are the host's)", () => {
    const { root } = fixture()
    return withSandbox(root, (sandbox) =>
      Effect.gen(function*() {
        const result = yield* sandbox.run(sh("sleep 30 & echo $! > bg.pid; echo started"))
        expect(result.exitCode).toBe(0)
        expect(result.timedOut).toBe(false)
        expect(yield* goneSoon(Number(readFileSync(path.join(root, "bg.pid"), "utf8")))).toBe(true)
      }), { isolate: "off" })
  })

  it.live("kills the whole group when interrupted (isolate off: the pids are the host's)", () => {
    const { root } = fixture()
    return withSandbox(root, (sandbox) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.fork(sandbox.run(sh("sleep 30 & echo $! > child.pid; wait")))
        // Wait for the real child to have started its grandchild; nothing about timing is asserted.
        while (!existsSync(path.join(root, "child.pid")) || readFileSync(path.join(root, "child.pid"), "utf8") === "") {
          yield* Effect.sleep(Duration.millis(20))
        }
        const exit = yield* Fiber.interrupt(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
        expect(yield* goneSoon(Number(readFileSync(path.join(root, "child.pid"), "utf8")))).toBe(true)
      }), { isolate: "off" })
  })

  it.live("bounds a busy loop by the timeout", () =>
    withSandbox(fixture().root, (sandbox) =>
      Effect.gen(function*() {
        const result = yield* sandbox.run(sh("while :; do echo y; done", { timeout: Duration.millis(300) }))
        expect(result.timedOut).toBe(true)
        expect(result.output.length).toBe(1024)
        expect(result.droppedBytes).toBeGreaterThan(0)
      })))

  it.live("fails with a typed error when the program cannot start", () =>
    withSandbox(fixture().root, (sandbox) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(sandbox.run({ ...spec, command: "/nonexistent/program", args: [] }))
        expect(error._tag).toBe("ProcessError")
        expect(error.message).toContain("/nonexistent/program")
      })))
})
