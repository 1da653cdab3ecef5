/**
 * Attack: `bash` inherited the server's whole environment, so `env` in a
 * tool call printed `EASYAI_API_KEY`, `EASYAI_MCP_API_KEY` and every other
 * secret the operator had exported.
 *
 * Replayed against the real `bash` tool on the real sandbox (both isolation
 * paths), a real external tool, and a real `easyai mcp --stdio` process
 * started with the keys set, called over MCP: tool processes get the short
 * pass-through list and the variables named with `--tool-env`, never
 * easyai's own — which are refused even when named.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Mailbox, Queue, Stream } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import * as SandboxLive from "../../src/layers/sandbox/SandboxLive.js"
import { loadExternalTools } from "../../src/layers/tools/external/load.js"
import { callTool, hostRegistry, isolationPaths } from "../support/hostTools.js"
import { callParams, initializeParams, rpcNotification, rpcRequest } from "../support/mcp.js"
import { runTsEnv, startTsEnv } from "../support/process.js"
import { field } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

/** What the operator's environment holds while a test runs: easyai's keys, a secret, and a variable meant for tools. */
const planted = {
  EASYAI_API_KEY: "sk-server-key-planted",
  EASYAI_MCP_API_KEY: "sk-mcp-key-planted",
  DATABASE_PASSWORD: "db-secret-planted",
  PROJECT_TOKEN: "meant-for-tools"
} as const

/** Runs `effect` with the planted variables in this process's environment, restoring it after. */
const withPlanted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const saved = Object.fromEntries(Object.keys(planted).map((name) => [name, process.env[name]]))
      Object.assign(process.env, planted)
      return saved
    }),
    () => effect,
    (saved) =>
      Effect.sync(() => {
        for (const [name, value] of Object.entries(saved)) {
          if (value === undefined) delete process.env[name]
          else process.env[name] = value
        }
      })
  )

/** Asserts that `output` (an `env` listing) leaks nothing planted but the named variable. */
const expectClean = (output: string) => {
  expect(output).not.toContain("EASYAI_API_KEY")
  expect(output).not.toContain("EASYAI_MCP_API_KEY")
  expect(output).not.toContain(planted.EASYAI_API_KEY)
  expect(output).not.toContain(planted.EASYAI_MCP_API_KEY)
  expect(output).not.toContain(planted.DATABASE_PASSWORD)
}

for (const { isolate, path: isolation } of isolationPaths) {
  describe(`tool processes get an explicit environment — ${isolation}`, () => {
    it.live("env in bash shows no easyai key and no other secret, but PATH and the --tool-env variable", () =>
      withPlanted(
        Effect.gen(function*() {
          const result = yield* callTool("bash", { command: "env" })
          expect(result.isError).toBe(false)
          expectClean(result.content)
          expect(result.content).toContain(`PROJECT_TOKEN=${planted.PROJECT_TOKEN}`)
          expect(result.content).toMatch(/^PATH=/m)
        }).pipe(Effect.provide(hostRegistry({ root: tempDir(), isolate, toolEnv: ["PROJECT_TOKEN"] })))
      ))

    it.live("without --tool-env, an operator's variable stays out too", () =>
      withPlanted(
        Effect.gen(function*() {
          const result = yield* callTool("bash", { command: "env" })
          expectClean(result.content)
          expect(result.content).not.toContain("PROJECT_TOKEN")
        }).pipe(Effect.provide(hostRegistry({ root: tempDir(), isolate })))
      ))
  })
}

describe("easyai's own variables are refused even when named", () => {
  it.live("the sandbox refuses to start with EASYAI_API_KEY in its tool environment", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Layer.build(SandboxLive.layer({ root: tempDir(), toolEnv: ["PROJECT_TOKEN", "EASYAI_API_KEY"] })).pipe(Effect.scoped)
      )
      expect(error._tag).toBe("SandboxSetupError")
      expect(error.message).toBe(
        "tool environment: EASYAI_API_KEY cannot be passed to tools: easyai's own variables (EASYAI_*, its API keys among them) never reach a tool process"
      )
    }))

  it.live("an external tool's env_passthrough naming EASYAI_API_KEY is warned about and gets nothing", () => {
    const tools = tempDir()
    writeFileSync(path.join(tools, "EASYAI-env.tools"), JSON.stringify({
      version: 1,
      tools: [{
        name: "show_env",
        description: "Prints its environment.",
        command: "/usr/bin/env",
        argv: [],
        env_passthrough: ["EASYAI_API_KEY", "EASYAI_MCP_API_KEY", "PROJECT_TOKEN"]
      }]
    }))
    return withPlanted(
      Effect.gen(function*() {
        const loaded = yield* loadExternalTools(tools, [])
        expect(loaded.errors).toEqual([])
        expect(loaded.warnings.join("\n")).toContain("env_passthrough names \"EASYAI_API_KEY\", one of easyai's own variables")
        const tool = yield* Effect.fromNullable(loaded.tools[0])
        const result = yield* tool.invoke("{}")
        expect(result.isError).toBe(false)
        expectClean(result.content)
        expect(result.content).toContain(`PROJECT_TOKEN=${planted.PROJECT_TOKEN}`)
      }).pipe(Effect.provide(SandboxLive.layer({ root: tempDir() })))
    )
  })

  it.live("easyai mcp refuses --tool-env EASYAI_MCP_API_KEY before it starts", () =>
    Effect.gen(function*() {
      const { exitCode, stderr, stdout } = yield* runTsEnv(
        {},
        "",
        "src/programs/cli/main.ts",
        "mcp",
        "--stdio",
        "--sandbox",
        tempDir(),
        "--tool-env",
        "EASYAI_MCP_API_KEY"
      )
      // A usage error, refused with the flag's other bad values.
      expect(exitCode).toBe(2)
      expect(stdout).toBe("")
      expect(stderr).toContain("EASYAI_MCP_API_KEY cannot be passed to tools")
    }), { timeout: 60_000 })
})

describe("a real easyai mcp --stdio started with the keys set", () => {
  it.scoped("bash called over MCP shows neither key, and shows the --tool-env variable", () =>
    Effect.gen(function*() {
      const child = yield* startTsEnv(
        planted,
        "src/programs/cli/main.ts",
        "mcp",
        "--stdio",
        "--sandbox",
        tempDir(),
        "--allow-bash",
        "--tool-env",
        "PROJECT_TOKEN",
        "--tools",
        "bash"
      )
      const input = yield* Mailbox.make<Uint8Array>()
      yield* Stream.run(Mailbox.toStream(input), child.stdin).pipe(Effect.forkScoped)
      const stdout = yield* Queue.unbounded<string>()
      const stderr = yield* Queue.unbounded<string>()
      const lines = (stream: Stream.Stream<Uint8Array, unknown>, queue: Queue.Queue<string>) =>
        stream.pipe(Stream.decodeText(), Stream.splitLines, Stream.runForEach((line) => Queue.offer(queue, line)), Effect.forkScoped)
      yield* lines(child.stdout, stdout)
      const stderrDone = yield* lines(child.stderr, stderr)
      const encoder = new TextEncoder()
      const send = (message: unknown) => input.offer(encoder.encode(`${JSON.stringify(message)}\n`))
      const reply = Queue.take(stdout).pipe(
        Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error("no reply on stdout") }),
        Effect.map((line): unknown => JSON.parse(line))
      )

      yield* send(rpcRequest(1, "initialize", initializeParams()))
      expect(field(yield* reply, "result", "serverInfo", "name")).toBe("easyai")
      yield* send(rpcNotification("notifications/initialized"))
      yield* send(rpcRequest(2, "tools/call", callParams("bash", { command: "env" })))
      const called = yield* reply
      expect(field(called, "result", "isError")).toBe(false)
      const text = String(field(called, "result", "content", 0, "text"))
      expectClean(text)
      expect(text).toContain(`PROJECT_TOKEN=${planted.PROJECT_TOKEN}`)

      yield* input.end
      expect(Number(yield* child.exitCode.pipe(Effect.timeout("20 seconds")))).toBe(0)
      // The program said at start which guard holds the tool processes (on stderr: stdout is the protocol).
      yield* Fiber.join(stderrDone)
      expect([...(yield* Queue.takeAll(stderr))].join("\n")).toContain("tools: isolation bubblewrap (PID namespace; evaluate read-only, no network)")
    }), { timeout: 90_000 })
})
