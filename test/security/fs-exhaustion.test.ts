/**
 * Replay: file operations used to exhaust memory or disk.
 *
 * `fs_list` on a directory of 100 000 entries used to lstat every one of
 * them (about 400 MB per call) to show 1000: now it stats only what it
 * shows. Writes leave a temporary file beside their target until the
 * rename: a write that failed, was interrupted or whose process died used
 * to leave it forever, shown in every listing. Now a failed or interrupted
 * write removes it, listings never show one, and the next write into the
 * directory removes those whose writer is gone.
 */
import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Option } from "effect"
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { Sandbox } from "easyai"
import * as SandboxLive from "../../src/layers/sandbox/SandboxLive.js"
import { callTool, fsToolsLayer } from "../support/fsTools.js"
import { callParams, initializeParams, rpcRequest } from "../support/mcp.js"
import { startMcpStdio } from "../support/mcpStdio.js"
import { field } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

const isTemporaryName = (name: string) => name.includes(".easyai-") && name.endsWith(".tmp")

/** The text of a successful tool call; fails the test on an error result. */
const ok = (name: string, args: unknown) =>
  Effect.map(callTool(name, args), (result) => {
    expect(result.isError, result.content).toBe(false)
    return result.content
  })

describe("fs_list on a huge directory", () => {
  it.effect("shows the first 1000 of 100 000 entries with the total, statting only those it shows", () => {
    const root = tempDir("easyai-huge-")
    const big = path.join(root, "big")
    mkdirSync(big)
    for (let i = 0; i < 100_000; i++) writeFileSync(path.join(big, `entry-${String(i).padStart(6, "0")}.txt`), "")
    writeFileSync(path.join(big, "entry-000000.txt"), "12345")
    let stats = 0
    return Effect.gen(function*() {
      const listed = (yield* ok("fs_list", { path: "/big" })).split("\n")
      expect(listed[0]).toBe("/big (100000 entries):")
      expect(listed[1]).toBe("file  5  entry-000000.txt")
      expect(listed[1000]).toBe("file  0  entry-000999.txt")
      expect(listed.slice(-1)).toEqual(["[99000 more entries not shown; find files with fs_glob]"])
      expect(listed.length).toBe(1 + 1000 + 1)
      // Only the shown entries were stat'ed: 1000, not 100 000.
      expect(stats).toBe(1000)
    }).pipe(Effect.provide(fsToolsLayer({ root, onEntryStat: () => stats++ })))
  }, { timeout: 120_000 })
})

/** A process id that ran and has ended: a real child process, waited for. */
const deadPid = Effect.gen(function*() {
  const child = yield* Command.make("true").pipe(Command.start)
  yield* child.exitCode
  return Number(child.pid)
}).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

describe("temporary files of writes", () => {
  it.live("are hidden from listings and globs, and swept by the next write when their writer is gone", () => {
    const root = tempDir("easyai-orphans-")
    const docs = path.join(root, "docs")
    mkdirSync(docs)
    writeFileSync(path.join(docs, "keep.md"), "keep\n")
    return Effect.gen(function*() {
      const dead = yield* deadPid
      const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000)
      const plant = (name: string, minutes: number) => {
        writeFileSync(path.join(docs, name), "half a file")
        utimesSync(path.join(docs, name), minutesAgo(minutes), minutesAgo(minutes))
      }
      const orphans = {
        deadWriter: `a.md.easyai-${dead}-0123456789ab.tmp`, // its writer died 20 minutes ago: removed
        liveWriter: `b.md.easyai-${process.pid}-0123456789ab.tmp`, // its writer runs: kept
        fresh: `c.md.easyai-${dead}-0123456789ab.tmp`, // too recent to judge: kept
        olderForm: "d.md.easyai-0123456789ab.tmp", // no writer recorded, a day old: removed
        recentOlderForm: "e.md.easyai-0123456789ab.tmp" // no writer recorded, an hour old: kept
      }
      plant(orphans.deadWriter, 20)
      plant(orphans.liveWriter, 20)
      plant(orphans.fresh, 1)
      plant(orphans.olderForm, 25 * 60)
      plant(orphans.recentOlderForm, 60)

      expect(yield* ok("fs_list", { path: "/docs" })).toBe("/docs (1 entry):\nfile  5  keep.md")
      expect(yield* ok("fs_glob", { pattern: "*" })).toBe(`1 file matches "*" under /:\n/docs/keep.md`)
      const sandbox = yield* Sandbox
      expect(yield* sandbox.walk("/", 100)).toEqual(["/docs/keep.md"])

      yield* ok("fs_write", { path: "/docs/new.md", content: "new\n" })
      expect(readdirSync(docs).sort()).toEqual(
        ["keep.md", "new.md", orphans.liveWriter, orphans.fresh, orphans.recentOlderForm].sort()
      )
    }).pipe(Effect.provide(fsToolsLayer({ root })), Effect.provide(SandboxLive.layer({ root })))
  })

  it.live("are removed when a write is interrupted before its rename", () => {
    const root = tempDir("easyai-interrupted-")
    writeFileSync(path.join(root, "big.bin"), "old\n")
    return Effect.gen(function*() {
      const sandbox = yield* Sandbox
      // Large enough that writing and syncing it outlasts the poll below by far.
      const fiber = yield* Effect.fork(sandbox.writeFile("/big.bin", new Uint8Array(256 * 1_048_576)))
      let seen = false
      for (let attempt = 0; attempt < 5000 && !seen; attempt++) {
        seen = readdirSync(root).some(isTemporaryName)
        if (!seen && Option.isSome(yield* Fiber.poll(fiber))) break
        if (!seen) yield* Effect.sleep(Duration.millis(1))
      }
      expect(seen, "the write's temporary file never appeared").toBe(true)
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(readdirSync(root)).toEqual(["big.bin"])
      expect(readFileSync(path.join(root, "big.bin"), "utf8")).toBe("old\n")
    }).pipe(Effect.provide(SandboxLive.layer({ root })))
  }, { timeout: 60_000 })

  it.scoped("are removed when a write fails midway in a real easyai mcp, the old file intact", () =>
    Effect.gen(function*() {
      const sandbox = tempDir("easyai-efbig-")
      writeFileSync(path.join(sandbox, "report.md"), "the old report\n")
      const { process, replyWithin, send } = yield* startMcpStdio("--sandbox", sandbox)
      yield* send(JSON.stringify(rpcRequest(0, "initialize", initializeParams())))
      yield* replyWithin("60 seconds")
      // The process may write files of at most 64 KiB from now on: a larger write fails with EFBIG midway.
      const limited = yield* Command.make("prlimit", `--pid=${process.pid}`, "--fsize=65536").pipe(
        Command.exitCode,
        Effect.provide(NodeContext.layer)
      )
      expect(Number(limited)).toBe(0)
      yield* send(JSON.stringify(rpcRequest(1, "tools/call", callParams("fs_write", { path: "/report.md", content: "x".repeat(1_048_576) }))))
      const failed = yield* replyWithin("20 seconds")
      expect(field(failed, "result", "isError")).toBe(true)
      expect(String(field(failed, "result", "content", 0, "text"))).toContain("/report.md: is too large")
      expect(readdirSync(sandbox)).toEqual(["report.md"])
      expect(readFileSync(path.join(sandbox, "report.md"), "utf8")).toBe("the old report\n")
      yield* process.kill("SIGTERM")
      expect(Number(yield* process.exitCode)).toBe(0)
    }), { timeout: 120_000 })
})
