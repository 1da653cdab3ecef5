/**
 * Attack: a tool call starts a process that leaves the call's process group
 * (`setsid -f`, a double fork with `setsid`, `nohup … &`) and keeps running
 * after the call — as the server's user, for as long as it likes.
 *
 * Replayed against the real `bash` tool and a real external tool on the real
 * sandbox, on both isolation paths: in a bubblewrap PID namespace, and with
 * isolation off (the process group plus the per-call tag). After a normal
 * end, a timeout and an interruption, no process started by the call is
 * left. The escaped `sleep` is found by a unique argument in /proc.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer } from "effect"
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { Sandbox } from "easyai"
import * as SandboxLive from "../../src/layers/sandbox/SandboxLive.js"
import { loadExternalTools } from "../../src/layers/tools/external/load.js"
import { runTsEnv } from "../support/process.js"
import { appears, callTool, hostRegistry, isolationPaths, noneLeft, uniqueSleep } from "../support/hostTools.js"
import { tempDir } from "../support/tempDir.js"

/** Waits, inside the call, until the escaped process has become `sleep` (its pid is in started.pid). */
const waitForEscapee =
  "until [ -s started.pid ] && grep -q '^sleep' /proc/$(cat started.pid)/cmdline 2>/dev/null; do sleep 0.01; done"

/** A Python double fork: the grandchild starts a new session, then becomes `sleep`. */
const doubleFork = `import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open("started.pid", "w") as f:
            f.write(str(os.getpid()))
        os.execvp("sleep", ["sleep", sys.argv[1]])
    os._exit(0)
os.wait()
`

/** Ways out of the process group, each leaving a `sleep <marker>` that should outlive the call. */
const escapes = [
  { name: "setsid -f", launch: (marker: string) => `setsid -f sh -c 'echo $$ > started.pid; exec sleep ${marker}'` },
  { name: "a python double fork with setsid", launch: (marker: string) => `python3 escape.py ${marker}` },
  {
    name: "nohup … &",
    launch: (marker: string) => `nohup sh -c 'echo $$ > started.pid; exec sleep ${marker}' >/dev/null 2>&1 &`
  }
] as const

/** A sandbox root holding the double-fork script. */
const rootWithScript = (): string => {
  const root = tempDir()
  writeFileSync(path.join(root, "escape.py"), doubleFork)
  return root
}

for (const { isolate, path: isolation } of isolationPaths) {
  describe(`tool processes never outlive their call — ${isolation}`, () => {
    for (const escape of escapes) {
      it.live(`bash: ${escape.name} leaves no survivor after a normal end`, () => {
        const marker = uniqueSleep()
        return Effect.gen(function*() {
          const result = yield* callTool("bash", { command: `${escape.launch(marker)}\n${waitForEscapee}; echo done`, timeout_seconds: 30 })
          expect(result).toMatchObject({ isError: false, content: "done\n[exit code 0]" })
          expect(yield* noneLeft(marker)).toBe(true)
        }).pipe(Effect.provide(hostRegistry({ root: rootWithScript(), isolate })))
      })

      it.live(`bash: ${escape.name} leaves no survivor after a timeout`, () => {
        const marker = uniqueSleep()
        return Effect.gen(function*() {
          const result = yield* callTool("bash", { command: `${escape.launch(marker)}\n${waitForEscapee}; sleep 60`, timeout_seconds: 1 })
          expect(result.isError).toBe(true)
          expect(result.content).toContain("timed out after 1000 ms")
          expect(yield* noneLeft(marker)).toBe(true)
        }).pipe(Effect.provide(hostRegistry({ root: rootWithScript(), isolate })))
      })

      it.live(`bash: ${escape.name} leaves no survivor after an interruption`, () => {
        const marker = uniqueSleep()
        return Effect.gen(function*() {
          const fiber = yield* Effect.fork(
            callTool("bash", { command: `${escape.launch(marker)}\n${waitForEscapee}; sleep 60`, timeout_seconds: 60 })
          )
          // The escapee must really run before the call is interrupted, or the test proves nothing.
          expect(yield* appears(marker)).toBe(true)
          expect(Exit.isInterrupted(yield* Fiber.interrupt(fiber))).toBe(true)
          expect(yield* noneLeft(marker)).toBe(true)
        }).pipe(Effect.provide(hostRegistry({ root: rootWithScript(), isolate })))
      })
    }

    it.live("an external tool's setsid -f leaves no survivor after a normal end", () => {
      const marker = uniqueSleep()
      const root = tempDir()
      const tools = tempDir()
      writeFileSync(path.join(tools, "EASYAI-escape.tools"), JSON.stringify({
        version: 1,
        tools: [{
          name: "escape",
          description: "Starts a process in a new session.",
          command: "/bin/sh",
          argv: ["-c", `${escapes[0].launch(marker)}; ${waitForEscapee}; echo done`],
          timeout_ms: 30_000,
          env_passthrough: ["PATH"]
        }]
      }))
      return Effect.gen(function*() {
        const loaded = yield* loadExternalTools(tools, [])
        expect(loaded.errors).toEqual([])
        const tool = yield* Effect.fromNullable(loaded.tools[0])
        expect(yield* tool.invoke("{}")).toMatchObject({ isError: false, content: "done\n" })
        expect(yield* noneLeft(marker)).toBe(true)
      }).pipe(Effect.provide(SandboxLive.layer({ root, isolate })))
    })

    it.live("a timeout still gives the command its SIGTERM grace before SIGKILL", () => {
      const root = tempDir()
      return Effect.gen(function*() {
        const result = yield* callTool("bash", {
          command: "trap 'echo cleaned > cleaned.txt; exit 0' TERM; sleep 60 & wait",
          timeout_seconds: 1
        })
        expect(result.content).toContain("timed out after 1000 ms")
        expect(existsSync(path.join(root, "cleaned.txt"))).toBe(true)
      }).pipe(Effect.provide(hostRegistry({ root, isolate })))
    })
  })
}

describe("choosing the isolation", () => {
  it.live("auto uses bubblewrap where it works, and says so", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox
      expect(sandbox.isolation).toEqual({ mechanism: "bubblewrap", summary: "bubblewrap (PID namespace; evaluate read-only, no network)" })
    }).pipe(Effect.provide(SandboxLive.layer({ root: tempDir() }))))

  it.live("auto without a working bubblewrap falls back and says why", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox
      expect(sandbox.isolation.mechanism).toBe("off")
      expect(sandbox.isolation.summary).toContain("processes tracked and killed; evaluate guarded by a Python audit hook")
      expect(sandbox.isolation.summary).toContain("/nonexistent/bwrap")
    }).pipe(Effect.provide(SandboxLive.layer({ root: tempDir(), bwrap: "/nonexistent/bwrap" }))))

  it.live("on fails to start, with a typed error, when bubblewrap is missing", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(SandboxLive.layer({ root: tempDir(), isolate: "on", bwrap: "/nonexistent/bwrap" })).pipe(Effect.scoped))
      expect(error._tag).toBe("SandboxSetupError")
      expect(error.message).toContain("isolation is required (isolate: on) but no mechanism works here")
      expect(error.message).toContain("/nonexistent/bwrap")
    }))

  it.live("on fails to start when bwrap exists but cannot build a sandbox", () => {
    const dir = tempDir()
    const fake = path.join(dir, "bwrap")
    mkdirSync(path.join(dir, "unused"))
    // A bwrap that refuses, as one without user namespaces does.
    writeFileSync(fake, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n", { mode: 0o755 })
    return Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(SandboxLive.layer({ root: tempDir(), isolate: "on", bwrap: fake })).pipe(Effect.scoped))
      expect(error.message).toContain("No permissions to create new namespace")
    })
  })

  it.live("easyai tools says which guard holds, and --isolate on without bwrap on PATH refuses to start", () => {
    const sandbox = tempDir()
    // A PATH with node alone: no bwrap on it.
    const bin = tempDir()
    symlinkSync(process.execPath, path.join(bin, "node"))
    return Effect.gen(function*() {
      const listed = yield* runTsEnv({}, undefined, "src/programs/cli/main.ts", "tools", "--sandbox", sandbox, "--allow-bash")
      expect(listed.exitCode).toBe(0)
      expect(listed.stdout).toContain("\ntools: isolation bubblewrap (PID namespace; evaluate read-only, no network)\n")
      const fallback = yield* runTsEnv({}, undefined, "src/programs/cli/main.ts", "tools", "--sandbox", sandbox, "--isolate", "off")
      expect(fallback.stdout).toContain("tools: isolation off — processes tracked and killed; evaluate guarded by a Python audit hook")
      expect(fallback.stdout).toContain("evaluate — ")
      const refused = yield* runTsEnv({ PATH: bin }, undefined, "src/programs/cli/main.ts", "tools", "--sandbox", sandbox, "--isolate", "on")
      expect(refused.exitCode).toBe(1)
      expect(refused.stdout).toBe("")
      expect(refused.stderr).toContain(
        "isolation is required (isolate: on) but no mechanism works here: bubblewrap (bwrap) is not installed"
      )
    })
  }, { timeout: 120_000 })
})
