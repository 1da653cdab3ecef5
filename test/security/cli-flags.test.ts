/**
 * A misplaced flag never drops a setting. `easyai serve … --temperature 0.7
 * --api-key k` used to start with auth off: @effect/cli handed the flag it did
 * not know, and everything after it, to the root command (the chat), which
 * took them. These tests replay that against the real CLI in real child
 * processes: a foreign flag is refused with one line and nothing starts; the
 * flags a command takes are all kept, whatever their order.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as net from "node:net"
import { initializeParams, rpcRequest } from "../support/mcp.js"
import { engineConfig, testModels } from "../support/models.js"
import { runCli } from "../support/process.js"
import { startProgram } from "../support/programProcess.js"
import { tempDir } from "../support/tempDir.js"

const model = testModels[0]
if (model === undefined) throw new Error("no test model")
const modelPath = engineConfig(model).modelPath

/** Runs the CLI; a command that should be refused must end on its own, so a server that started fails the test. */
const easyai = (...args: ReadonlyArray<string>) =>
  runCli({ cwd: tempDir() }, ...args).pipe(
    Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error(`easyai ${args.join(" ")} did not exit`) })
  )

/** A loopback port nothing listens on right now. */
const freePort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    server.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
  })
})

/** Whether a TCP connection to 127.0.0.1:`port` is accepted. */
const listening = (port: number) =>
  Effect.async<boolean>((resume) => {
    const socket = net.createConnection({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

const status = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.scoped(Effect.flatMap(HttpClient.HttpClient, (client) => Effect.map(client.execute(request), (response) => response.status)))

const toolCount = (url: string) =>
  Effect.scoped(Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).execute(
      HttpClientRequest.get(`${url}/v1/tools`).pipe(HttpClientRequest.bearerToken("k"))
    )
    const body: unknown = yield* response.json
    return typeof body === "object" && body !== null && "data" in body && Array.isArray(body.data) ? body.data.length : -1
  }))

/** A flag each command does not take, given between (or after) flags it does. */
const foreign = [
  { command: "chat", flag: "--port", args: ["-p", "hi", "--port", "8080", "--no-tools"] },
  { command: "serve", flag: "--prompt", args: ["-m", modelPath, "--prompt", "hi", "--api-key", "k"] },
  { command: "mcp", flag: "--temperature", args: ["--port", "0", "--temperature", "0.7", "--api-key", "k"] },
  { command: "models", flag: "--temperature", args: ["--url", "http://127.0.0.1:1", "--temperature", "0.7"] },
  { command: "tools", flag: "--port", args: ["--no-python", "--port", "8080"] },
  { command: "health", flag: "--no-tools", args: ["--url", "http://127.0.0.1:1", "--no-tools"] },
  { command: "props", flag: "--sandbox", args: ["--url", "http://127.0.0.1:1", "--sandbox", "."] },
  { command: "metrics", flag: "--model", args: ["--model", modelPath, "--url", "http://127.0.0.1:1"] },
  { command: "preset", flag: "--stdio", args: ["precise", "--url", "http://127.0.0.1:1", "--stdio"] }
] as const

describe("a flag the command does not take", () => {
  for (const { args, command, flag } of foreign) {
    it.live(`is refused by easyai ${command} with one line naming it (${flag})`, () =>
      Effect.gen(function*() {
        const { exitCode, stderr, stdout } = yield* easyai(command, ...args)
        expect(exitCode).toBe(2)
        expect(stdout).toBe("")
        expect(stderr).toBe(`easyai ${command}: unknown flag ${flag} (see easyai ${command} --help)`)
      }), { timeout: 90_000 })
  }

  it.live("is refused by easyai itself, before or after its own flags and as --flag=value", () =>
    Effect.gen(function*() {
      const before = yield* easyai("--port=8080", "-p", "hi", "--no-tools")
      expect(before.exitCode).toBe(2)
      expect(before.stderr).toBe("easyai: unknown flag --port (see easyai --help)")
      const rootFlagBeforeServe = yield* easyai("--api-key", "k", "serve", "-m", modelPath, "--port", "0")
      expect(rootFlagBeforeServe.exitCode).toBe(2)
      expect(rootFlagBeforeServe.stderr).toBe("easyai serve: --api-key must come after \"serve\" (see easyai serve --help)")
    }), { timeout: 90_000 })

  it.live("stops easyai serve --prompt hi --api-key k before anything listens", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const refused = yield* easyai("serve", "-m", modelPath, "--port", String(port), "--prompt", "hi", "--api-key", "k")
      expect(refused.exitCode).toBe(2)
      // One line and nothing else: no model was loaded, no banner printed.
      expect(refused.stderr).toBe("easyai serve: unknown flag --prompt (see easyai serve --help)")
      expect(refused.stdout).toBe("")
      expect(yield* listening(port)).toBe(false)
      const spelled = yield* easyai("serve", "-m", modelPath, "--port", String(port), "--api-key=k", "--prompt=hi")
      expect(spelled.stderr).toBe("easyai serve: unknown flag --prompt (see easyai serve --help)")
      expect(yield* listening(port)).toBe(false)
    }), { timeout: 120_000 })

  it.live("short flags run together are refused, not reduced to the last one", () =>
    Effect.gen(function*() {
      const { exitCode, stderr } = yield* easyai("chat", "-p", "hi", "-yv", "--url", "http://127.0.0.1:1")
      expect(exitCode).toBe(2)
      expect(stderr).toBe("easyai chat: unknown flag -yv: give short flags one at a time (-y -v) (see easyai chat --help)")
    }), { timeout: 90_000 })
})

describe("the flags a command takes", () => {
  for (const order of [["--no-tools", "--api-key", "k"], ["--api-key", "k", "--alias", "tiny", "--no-tools"]] as const) {
    it.scoped(`are all kept by a real easyai serve (${order.join(" ")} after the other flags)`, () =>
      Effect.gen(function*() {
        const { nextLine, process } = yield* startProgram("serve", "-m", modelPath, "--port", "0", "--threads", "1", "--ctx", "512", ...order)
        const banner = yield* nextLine
        expect(banner).toMatch(/^easyai serve · http:\/\/127\.0\.0\.1:\d+$/)
        const url = banner.slice(banner.indexOf("http://"))
        yield* nextLine // the model line
        expect(yield* nextLine).toMatch(/ · tools 0 · auth on · /)
        expect(yield* status(HttpClientRequest.get(`${url}/v1/models`))).toBe(401)
        expect(yield* status(HttpClientRequest.get(`${url}/v1/models`).pipe(HttpClientRequest.bearerToken("k")))).toBe(200)
        expect(yield* toolCount(url)).toBe(0)
        yield* process.kill("SIGTERM")
        expect(Number(yield* process.exitCode)).toBe(0)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })
  }

  it.scoped("are all kept by a real easyai mcp: /mcp refuses a request without the key", () =>
    Effect.gen(function*() {
      const { nextLine, process } = yield* startProgram("mcp", "--port", "0", "--no-python", "--api-key", "k", "--no-sessions")
      const banner = yield* nextLine
      const url = banner.slice(banner.indexOf("http://"))
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      expect(yield* nextLine).toBe("  tools 5 · auth on · sessions off · cors none")
      const initialize = HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders({ accept: "application/json, text/event-stream" }),
        HttpClientRequest.bodyUnsafeJson(rpcRequest(1, "initialize", initializeParams()))
      )
      expect(yield* status(initialize)).toBe(401)
      expect(yield* status(initialize.pipe(HttpClientRequest.bearerToken("k")))).toBe(200)
      yield* process.kill("SIGTERM")
      expect(Number(yield* process.exitCode)).toBe(0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })

  it.live("keeps --no-tools after a sampling flag in the chat, as easyai and as easyai chat", () =>
    Effect.gen(function*() {
      for (const command of [[], ["chat"]]) {
        const { exitCode, stdout } = yield* easyai(...command, "--show-system-prompt", "--temperature", "0.7", "--no-tools")
        expect(exitCode).toBe(0)
        expect(stdout.startsWith("You are")).toBe(true)
        expect(stdout).not.toContain("tool_lookup")
      }
    }), { timeout: 90_000 })

  it.live("keeps a flag after the positional argument of easyai preset", () =>
    Effect.gen(function*() {
      const port = yield* freePort
      const { exitCode, stderr } = yield* easyai("preset", "precise", "--url", `http://127.0.0.1:${port}`, "--http-retries", "0")
      expect(exitCode).toBe(1)
      // The request went to the --url given after NAME: the flag was kept.
      expect(stderr).toBe(`easyai preset: http://127.0.0.1:${port}/v1/preset: connect ECONNREFUSED 127.0.0.1:${port}`)
    }), { timeout: 90_000 })
})
