/**
 * Replay: named pipes (FIFOs) where the model's tools read files.
 *
 * Opening a FIFO for reading blocks until a writer comes, and node opens
 * files on one of libuv's four pool threads: four such calls used to wedge
 * every file operation of the process for good, and it then ignored
 * SIGTERM. The attack runs against a real `easyai mcp --stdio` process:
 * eight FIFOs named like memory entries for `knowledge_load`, and eight in
 * the sandbox for `fs_read` and `fs_edit` (edit opens the file without a
 * stat first). Each call must get an error reply, `fs_list` must still
 * answer, and SIGTERM must still end the process. The Sandbox layer itself
 * must refuse a FIFO even when asked to read one directly, as after a
 * regular file was swapped for a FIFO between a tool's check and its read.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Command } from "@effect/platform"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { FileError, Sandbox } from "easyai"
import * as SandboxLive from "../../src/layers/sandbox/SandboxLive.js"
import { callParams, initializeParams, rpcNotification, rpcRequest } from "../support/mcp.js"
import { startMcpStdio } from "../support/mcpStdio.js"
import { field } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

const names = ["a", "b", "c", "d", "e", "f", "g", "h"]

/** Makes FIFOs at `paths` with the real mkfifo(1). */
const mkfifo = (...paths: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const exitCode = yield* Command.make("mkfifo", ...paths).pipe(Command.exitCode)
    expect(Number(exitCode)).toBe(0)
  }).pipe(Effect.provide(NodeContext.layer))

/** How long a call may take before the process counts as wedged: a liveness bound, not a benchmark. */
const live = "5 seconds"

describe("FIFOs where files are read", () => {
  it.scoped("easyai mcp answers knowledge_load, fs_read and fs_edit on FIFOs with errors, then still lists and stops on SIGTERM", () =>
    Effect.gen(function*() {
      const base = tempDir("easyai-fifo-")
      const sandbox = path.join(base, "sandbox")
      const memory = path.join(base, "memory")
      mkdirSync(sandbox)
      mkdirSync(memory)
      writeFileSync(path.join(sandbox, "ok.txt"), "still here\n")
      yield* mkfifo(...names.map((name) => path.join(memory, `${name}.md`)))
      yield* mkfifo(...names.map((name) => path.join(sandbox, `${name}.txt`)))

      const { process, replyWithin, send } = yield* startMcpStdio("--sandbox", sandbox, "--memory", memory)
      let id = 0
      const call = (name: string, args: Readonly<Record<string, unknown>>) =>
        Effect.gen(function*() {
          id += 1
          yield* send(JSON.stringify(rpcRequest(id, "tools/call", callParams(name, args))))
          const reply = yield* replyWithin(live)
          expect(field(reply, "id")).toBe(id)
          return reply
        })
      // Starting up may take a while on a loaded machine; the calls after it may not.
      yield* send(JSON.stringify(rpcRequest(0, "initialize", initializeParams())))
      yield* replyWithin("60 seconds")
      yield* send(JSON.stringify(rpcNotification("notifications/initialized")))

      for (const name of names) {
        const loaded = yield* call("knowledge_load", { keywords: [`${name}.md`] })
        expect(field(loaded, "result", "isError"), JSON.stringify(loaded)).toBe(true)
        expect(String(field(loaded, "result", "content", 0, "text"))).toContain(
          `"${name}.md" exists in the memory directory but is not a memory entry (it is a named pipe (FIFO))`
        )
      }
      for (const name of names) {
        const read = yield* call("fs_read", { path: `/${name}.txt` })
        expect(field(read, "result", "isError")).toBe(true)
        expect(String(field(read, "result", "content", 0, "text"))).toContain("not a regular file")
        const edited = yield* call("fs_edit", { path: `/${name}.txt`, start_line: 1, end_line: 1, content: "x" })
        expect(field(edited, "result", "isError")).toBe(true)
        expect(String(field(edited, "result", "content", 0, "text"))).toContain(
          `/${name}.txt: is not a regular file (it is a named pipe (FIFO))`
        )
      }
      // Sixteen calls on FIFOs later, file operations still answer.
      const listed = yield* call("fs_list", {})
      expect(field(listed, "result", "isError")).toBe(false)
      expect(String(field(listed, "result", "content", 0, "text"))).toContain("ok.txt")
      expect(String(field(yield* call("fs_read", { path: "/ok.txt" }), "result", "content", 0, "text"))).toContain("1|still here")
      const searched = yield* call("knowledge_search", { keywords: ["a"] })
      expect(field(searched, "result", "isError")).toBe(false)

      yield* process.kill("SIGTERM")
      const exitCode = yield* process.exitCode.pipe(
        Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("easyai mcp ignored SIGTERM") })
      )
      expect(Number(exitCode)).toBe(0)
    }), { timeout: 180_000 })

  it.effect("the Sandbox refuses to read a FIFO handed to it directly, at once", () => {
    const root = tempDir("easyai-fifo-layer-")
    return Effect.gen(function*() {
      yield* mkfifo(path.join(root, "pipe"))
      const sandbox = yield* Sandbox
      const refused = new FileError({ path: "/pipe", reason: "NotRegular", detail: "it is a named pipe (FIFO)" })
      // Eight at once: more than libuv's four pool threads, each of which a blocking open would hold.
      const reads = yield* Effect.forEach(
        names,
        () => Effect.flip(Effect.zip(sandbox.readRange("/pipe", 0, 10), sandbox.readFile("/pipe", 10))),
        { concurrency: "unbounded" }
      )
      expect(reads).toEqual(names.map(() => refused))
      expect(yield* sandbox.stat("/pipe")).toMatchObject({ type: "Other" })
      expect((yield* sandbox.list("/", 10)).entries).toEqual([{ name: "pipe", type: "Other", size: 0 }])
    }).pipe(Effect.provide(SandboxLive.layer({ root })))
  })
})
