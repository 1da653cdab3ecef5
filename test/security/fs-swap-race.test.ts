/**
 * Replay: a directory swapped for a symbolic link to the outside, over and
 * over, while the model reads and writes through it.
 *
 * A child process exchanges `root/d` (a real directory holding `f`) and
 * `root/d-link` (a symbolic link to `<tmp>/outside`) atomically
 * (`renameat2(RENAME_EXCHANGE)`, so `d` is never missing) as fast as it
 * can, while 1000 `fs_read`s of `/d/f` and 500 `fs_write`s of `/d/new-N`
 * go through the real fs tools on the real sandbox. When the sandbox
 * checked a path and then opened it by name, two runs of this test
 * measured 4 and 5 of 1000 reads returning the outside file, and 5 and 12
 * files written into the outside directory. Now every step is taken inside a directory already opened, so
 * none does; that the link was really met is asserted too (reads refused
 * with "leads through a symbolic link outside the sandbox").
 */
import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { lstatSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { callTool, fsToolsLayer } from "../support/fsTools.js"
import { tempDir } from "../support/tempDir.js"

/**
 * Exchanges `d` and `d-link` in argv[1] until `stop` appears there (checked
 * every 1000 swaps) or 120 s pass; prints how many exchanges it made.
 */
const swapper = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
os.chdir(sys.argv[1])
a, b = b"d", b"d-link"
swaps, deadline = 0, time.monotonic() + 120
print("ready", flush=True)
while time.monotonic() < deadline and not os.path.exists("stop"):
    for _ in range(1000):
        if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
        swaps += 1
print(swaps, flush=True)
`

const outsideText = "OUTSIDE SECRET\n"
const insideText = "inside\n"

describe("a directory swapped for a link to the outside, mid-call", () => {
  it.live("never lets fs_read return the outside file nor fs_write create a file outside", () => {
    const base = tempDir("easyai-swap-")
    const root = path.join(base, "root")
    const outside = path.join(base, "outside")
    mkdirSync(path.join(root, "d"), { recursive: true })
    mkdirSync(outside)
    writeFileSync(path.join(root, "d", "f"), insideText)
    writeFileSync(path.join(outside, "f"), outsideText)
    symlinkSync(outside, path.join(root, "d-link"))
    return Effect.gen(function*() {
      const child = yield* Command.make("python3", "-c", swapper, root).pipe(Command.start)
      const lines = child.stdout.pipe(Stream.decodeText(), Stream.splitLines)
      const output = yield* Stream.toPull(lines)
      const first = yield* output.pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("swapper did not start") }))
      expect([...first]).toEqual(["ready"])

      const reads = yield* Effect.forEach(
        Array.from({ length: 1000 }, (_, i) => i),
        () => callTool("fs_read", { path: "/d/f" }),
        { concurrency: 4 }
      )
      const writes = yield* Effect.forEach(
        Array.from({ length: 500 }, (_, i) => i),
        (i) => callTool("fs_write", { path: `/d/new-${i}`, content: `written ${i}\n` }),
        { concurrency: 4 }
      )

      writeFileSync(path.join(root, "stop"), "")
      const swapped = yield* Stream.runCollect(Stream.fromPull(Effect.succeed(output)))
      expect(Number(yield* child.exitCode)).toBe(0)
      const swaps = Number([...swapped][0])

      const leaked = reads.filter((result) => result.content.includes("OUTSIDE SECRET"))
      const inside = reads.filter((result) => !result.isError && result.content.includes("1|inside"))
      const refused = reads.filter((result) =>
        result.isError && result.content.includes("leads through a symbolic link outside the sandbox"))
      // The race was run: the swapper kept going through the calls, and the reads met both states of d.
      expect(swaps).toBeGreaterThan(1000)
      expect(inside.length).toBeGreaterThan(0)
      expect(refused.length).toBeGreaterThan(0)
      // Every read either read the inside file or was refused; none read the outside one.
      expect(leaked).toEqual([])
      expect(inside.length + reads.filter((result) => result.isError).length).toBe(1000)
      // Nothing was written outside; what was written is inside, with no temporary file left.
      expect(readdirSync(outside)).toEqual(["f"])
      const real = [path.join(root, "d"), path.join(root, "d-link")].find((dir) => lstatSync(dir).isDirectory())
      expect(real).toBeDefined()
      const written = readdirSync(real ?? root)
      expect(written.filter((name) => name.endsWith(".tmp"))).toEqual([])
      const succeeded = writes.filter((result) => !result.isError).length
      expect(succeeded).toBeGreaterThan(0)
      expect(written.filter((name) => name.startsWith("new-")).length).toBe(succeeded)
    }).pipe(Effect.scoped, Effect.provide(fsToolsLayer({ root })), Effect.provide(NodeContext.layer))
  }, { timeout: 180_000 })
})
