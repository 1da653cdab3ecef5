import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { ToolCall, ToolRegistry, ToolRegistryLive } from "easyai"
import * as SandboxLive from "../../../src/layers/sandbox/SandboxLive.js"
import { bash } from "../../../src/layers/tools/bash.js"
import { evaluate } from "../../../src/layers/tools/evaluate.js"
import { goneSoon } from "../../support/processes.js"
import { tempDir } from "../../support/tempDir.js"
import { named } from "../../support/tools.js"

/** A registry with bash and evaluate on a sandbox at `root`, plus `extra` tools. */
const registryAt = (
  root: string,
  extra: ReadonlyArray<ReturnType<typeof named>> = [],
  isolate: SandboxLive.Options["isolate"] = "auto"
) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const registry = yield* ToolRegistry
    for (const tool of extra) yield* registry.add(tool)
    yield* registry.add(yield* bash)
    yield* registry.add(yield* evaluate)
  })).pipe(
    Layer.provideMerge(Layer.merge(ToolRegistryLive.layer(), SandboxLive.layer({ root, isolate })))
  )

const call = (name: string, args: unknown) =>
  Effect.flatMap(ToolRegistry, (registry) => registry.call(new ToolCall({ id: "c", name, arguments: JSON.stringify(args) })))

describe("bash", () => {
  it.live("runs in the sandbox root and reports the exit code", () => {
    const root = tempDir()
    writeFileSync(path.join(root, "a.txt"), "one\ntwo\n")
    return Effect.gen(function*() {
      const ok = yield* call("bash", { command: "pwd; wc -l < a.txt" })
      expect(ok.isError).toBe(false)
      expect(ok.content).toBe(`${root}\n2\n[exit code 0]`)
      const failed = yield* call("bash", { command: "echo oops 1>&2; exit 7" })
      expect(failed).toMatchObject({ isError: true, content: "oops\n[exit code 7]" })
    }).pipe(Effect.provide(registryAt(root)))
  })

  it.live("caps output at 32 KiB with a note", () =>
    Effect.gen(function*() {
      const result = yield* call("bash", { command: "head -c 40000 /dev/zero | tr '\\0' a" })
      const [output, note] = result.content.split("\n")
      expect(output).toHaveLength(32 * 1024)
      expect(note).toBe(`[output truncated: ${40000 - 32 * 1024} more bytes were dropped]`)
    }).pipe(Effect.provide(registryAt(tempDir()))))

  it.live("stops a command at its timeout, with everything it started (isolate off: the pid is the host's)", () => {
    const root = tempDir()
    return Effect.gen(function*() {
      const result = yield* call("bash", { command: "sleep 60 & echo $! > bg.pid; sleep 60", timeout_seconds: 1 })
      expect(result.isError).toBe(true)
      expect(result.content).toContain("[timed out after 1000 ms; the process and its children were stopped]")
      expect(yield* goneSoon(Number(readFileSync(path.join(root, "bg.pid"), "utf8")))).toBe(true)
    }).pipe(Effect.provide(registryAt(root, [], "off")))
  })

  it.live("rejects a timeout above 300 seconds with a teaching error", () =>
    Effect.gen(function*() {
      const result = yield* call("bash", { command: "true", timeout_seconds: 301 })
      expect(result.isError).toBe(true)
      expect(result.content).toContain("timeout_seconds: expected an integer from 1 to 300, got 301")
    }).pipe(Effect.provide(registryAt(tempDir()))))

  it.effect("says honestly that it is not a hardened sandbox", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const spec = (yield* registry.specs).find((s) => s.name === "bash")
      expect(spec?.shortDescription).toContain("NOT a hardened sandbox")
      expect(spec?.description).toContain("runs with your user's privileges")
    }).pipe(Effect.provide(registryAt(tempDir()))))
})

describe("evaluate", () => {
  it.live("computes and prints", () =>
    Effect.gen(function*() {
      const result = yield* call("evaluate", { code: "print(sum(i * i for i in range(10)))" })
      expect(result).toMatchObject({ isError: false, content: "285\n[exit code 0]" })
    }).pipe(Effect.provide(registryAt(tempDir()))))

  it.live("reads files inside the sandbox", () => {
    const root = tempDir()
    mkdirSync(path.join(root, "data"))
    writeFileSync(path.join(root, "data", "n.csv"), "1\n2\n3\n")
    return Effect.gen(function*() {
      const result = yield* call("evaluate", { code: "print(sum(int(x) for x in open('data/n.csv')))" })
      expect(result.content).toBe("6\n[exit code 0]")
    }).pipe(Effect.provide(registryAt(root)))
  })

  it.live("refuses every write and every read outside, naming the write tool registered", () => {
    const root = tempDir()
    return Effect.gen(function*() {
      for (
        const code of [
          "open('x.txt', 'w').write('no')",
          "open('x.txt', 'A')",
          "open('x.txt', 'r+')",
          "import io; io.open('x.txt', 'wb')",
          "import os; os.open('x.txt', os.O_WRONLY | os.O_CREAT)"
        ]
      ) {
        const result = yield* call("evaluate", { code })
        expect(result.isError, code).toBe(true)
        expect(result.content, code).toContain("PermissionError: evaluate is read-only")
        expect(result.content, code).toContain("use the fs_write tool")
      }
      const outside = yield* call("evaluate", { code: "open('/etc/hostname').read()" })
      expect(outside.content).toContain("evaluate may only read files inside the sandbox")
      const climb = yield* call("evaluate", { code: "open('../../etc/passwd').read()" })
      expect(climb.content).toContain("is outside it")
      const traceback = yield* call("evaluate", { code: "x = 1\nraise ValueError('boom')" })
      expect(traceback.content).toContain(`File "<evaluate>", line 2`)
    }).pipe(Effect.provide(registryAt(root, [named("fs_write")])))
  })

  it.live("points at fs(action=\"write\") or at the reply when that is what exists", () =>
    Effect.gen(function*() {
      const unified = yield* call("evaluate", { code: "open('x', 'w')" })
      expect(unified.content).toContain(`use fs(action="write")`)
    }).pipe(Effect.provide(registryAt(tempDir(), [named("fs")]))))

  it.live("answers to its legacy name python3", () =>
    Effect.gen(function*() {
      const result = yield* call("python3", { code: "print('legacy')" })
      expect(result.content).toBe("legacy\n[exit code 0]")
    }).pipe(Effect.provide(registryAt(tempDir()))))
})
