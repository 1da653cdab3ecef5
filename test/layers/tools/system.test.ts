import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { systemTools } from "easyai"
import { systemDiskUsage } from "../../../src/layers/tools/system/disk.js"
import { systemLoad } from "../../../src/layers/tools/system/load.js"
import { systemMemory } from "../../../src/layers/tools/system/memory.js"
import { systemProcesses } from "../../../src/layers/tools/system/processes.js"
import { callParams } from "../../support/mcp.js"
import { cliBundle, projectRoot, runTs } from "../../support/process.js"
import { field } from "../../support/server.js"
import { tempDir } from "../../support/tempDir.js"

const numberAt = (value: unknown, key: string): number => {
  const found = field(value, key)
  expect(typeof found).toBe("number")
  return typeof found === "number" ? found : Number.NaN
}

const arrayAt = (value: unknown, key: string): ReadonlyArray<unknown> => {
  const found = field(value, key)
  expect(Array.isArray(found)).toBe(true)
  return Array.isArray(found) ? found : []
}

/** A real process that keeps one core busy, killed when the scope closes. */
const busyProcess = Command.make(process.execPath, "-e", "for (;;) {}").pipe(Command.start, Effect.provide(NodeContext.layer))

describe("system_* tools, on this host", () => {
  it.live("system_load measures every core over the window and reports the load averages", () =>
    Effect.gen(function*() {
      const result = yield* systemLoad.invoke(JSON.stringify({ sample_ms: 200 }))
      expect(result.isError).toBe(false)
      const data = result.structured
      expect(numberAt(data, "cores")).toBe(os.cpus().length)
      const cores = arrayAt(data, "perCore")
      expect(cores).toHaveLength(os.cpus().length)
      for (const core of cores) {
        const use = numberAt(core, "usePercent")
        expect(use).toBeGreaterThanOrEqual(0)
        expect(use).toBeLessThanOrEqual(100)
      }
      expect(numberAt(field(data, "loadAverage"), "one")).toBeCloseTo(os.loadavg()[0] ?? 0, 0)
      expect(numberAt(field(data, "tasks"), "total")).toBeGreaterThan(0)
      expect(result.content).toMatch(/^CPU: \d+ cores, /)
      expect(result.content).toContain("Use over 200 ms: ")
      expect(result.content).toMatch(/\n {2}cpu0 +\d+\.\d%/)
    }))

  it.live("system_memory reads the kernel's figures, swap included", () =>
    Effect.gen(function*() {
      const result = yield* systemMemory.invoke("{}")
      expect(result.isError).toBe(false)
      const data = result.structured
      expect(numberAt(data, "totalBytes")).toBe(os.totalmem())
      const available = numberAt(data, "availableBytes")
      expect(available).toBeGreaterThan(0)
      expect(numberAt(data, "usedBytes")).toBe(os.totalmem() - available)
      expect(field(data, "swap")).not.toBeNull()
      expect(result.content).toMatch(/^Memory: .+ used of .+ \(\d+\.\d%\), .+ available/)
      expect(result.content).toMatch(/\nSwap: /)
    }))

  it.live("system_disk_usage lists the real filesystems and finds the one holding a path", () =>
    Effect.gen(function*() {
      const all = yield* systemDiskUsage.invoke("{}")
      expect(all.isError).toBe(false)
      const filesystems = arrayAt(all.structured, "filesystems")
      const mounts = filesystems.map((fs) => field(fs, "mount"))
      expect(mounts).toContain("/")
      expect(filesystems.map((fs) => field(fs, "type"))).not.toContain("proc")
      const root = filesystems[mounts.indexOf("/")]
      expect(numberAt(root, "sizeBytes")).toBeGreaterThan(numberAt(root, "usedBytes"))

      const deep = path.join(tempDir(), "a", "b")
      mkdirSync(deep, { recursive: true })
      const one = yield* systemDiskUsage.invoke(JSON.stringify({ path: deep }))
      expect(one.isError).toBe(false)
      const held = arrayAt(one.structured, "filesystems")
      expect(held).toHaveLength(1)
      const mount = String(field(held[0], "mount"))
      expect(deep === mount || deep.startsWith(mount === "/" ? "/" : `${mount}/`)).toBe(true)
    }))

  it.live("system_disk_usage teaches on a relative or missing path", () =>
    Effect.gen(function*() {
      const relative = yield* systemDiskUsage.invoke(JSON.stringify({ path: "home" }))
      expect(relative.isError).toBe(true)
      expect(relative.content).toBe(`system_disk_usage: path must be absolute, e.g. {"path": "/home"}; got "home".`)
      const missing = yield* systemDiskUsage.invoke(JSON.stringify({ path: "/no/such/dir/here" }))
      expect(missing.isError).toBe(true)
      expect(missing.content).toContain(`no such path: "/no/such/dir/here"`)
    }))

  it.live("system_processes finds a process burning a core at the top by CPU", () =>
    Effect.scoped(Effect.gen(function*() {
      const busy = yield* busyProcess
      const result = yield* systemProcesses.invoke(JSON.stringify({ sort_by: "cpu", limit: 50, sample_ms: 1000 }))
      expect(result.isError).toBe(false)
      const rows = arrayAt(result.structured, "processes")
      const row = rows.find((candidate) => field(candidate, "pid") === busy.pid)
      expect(row, result.content).toBeDefined()
      expect(numberAt(row, "cpuPercent")).toBeGreaterThan(20)
      expect(field(row, "name")).toBe("node")
      expect(numberAt(row, "rssBytes")).toBeGreaterThan(0)
      expect(field(row, "ppid")).toBe(process.pid)
      expect(result.content).toMatch(/^Top \d+ of \d+ processes by cpu over 1000 ms:\nPID +PPID +STATE +CPU%/)
      const byMemory = yield* systemProcesses.invoke(JSON.stringify({ sort_by: "memory", limit: 3 }))
      const rss = arrayAt(byMemory.structured, "processes").map((candidate) => numberAt(candidate, "rssBytes"))
      expect(rss).toHaveLength(3)
      expect([...rss].sort((a, b) => b - a)).toEqual(rss)
    })), { timeout: 30_000 })

  it.effect("rejects out-of-range arguments with the range", () =>
    Effect.gen(function*() {
      const result = yield* systemProcesses.invoke(JSON.stringify({ limit: 500 }))
      expect(result.isError).toBe(true)
      expect(result.content).toContain("limit: expected")
      expect(result.content).toContain("50")
    }))
})

describe("system_* tools in the programs", () => {
  it.live("the remote chat's default toolset has them; a local chat's has not", () =>
    Effect.gen(function*() {
      const remote = yield* runTs("src/programs/cli/main.ts", "--show-system-prompt", "--url", "http://127.0.0.1:9")
      expect(remote.exitCode).toBe(0)
      for (const tool of systemTools) expect(remote.stdout).toContain(`- ${tool.spec.name} — `)
      const local = yield* runTs("src/programs/cli/main.ts", "--show-system-prompt", "--model", "model.gguf")
      expect(local.exitCode).toBe(0)
      expect(local.stdout).not.toContain("system_load")
    }), { timeout: 60_000 })

  it.live("easyai mcp --stdio serves them with output schemas; the SDK validates their structured results", () =>
    Effect.gen(function*() {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cliBundle, "mcp", "--stdio"],
        cwd: projectRoot,
        stderr: "pipe"
      })
      const client = new Client({ name: "system-test", version: "1.0.0" })
      const sdk = <A>(run: () => Promise<A>) => Effect.promise(run)
      const used = Effect.gen(function*() {
        yield* sdk(() => client.connect(transport))
        const { tools } = yield* sdk(() => client.listTools())
        for (const tool of systemTools) {
          const listed = tools.find((candidate) => candidate.name === tool.spec.name)
          expect(listed?.outputSchema?.type).toBe("object")
          expect(JSON.stringify(listed?.inputSchema)).not.toMatch(/"title":"(between|int|maxLength|minLength)/)
        }
        const memory = yield* sdk(() => client.callTool(callParams("system_memory", {})))
        expect(memory.isError).toBe(false)
        expect(field(memory.structuredContent, "totalBytes")).toBe(os.totalmem())
        const load = yield* sdk(() => client.callTool(callParams("system_load", { sample_ms: 100 })))
        expect(field(load.structuredContent, "cores")).toBe(os.cpus().length)
        const disk = yield* sdk(() => client.callTool(callParams("system_disk_usage", { path: "/" })))
        expect(arrayAt(disk.structuredContent, "filesystems")).toHaveLength(1)
        const top = yield* sdk(() => client.callTool(callParams("system_processes", { limit: 2, sample_ms: 100 })))
        expect(arrayAt(top.structuredContent, "processes")).toHaveLength(2)
      })
      yield* used.pipe(Effect.ensuring(Effect.promise(() => client.close())))
    }), { timeout: 60_000 })
})
