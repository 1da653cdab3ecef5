/**
 * `easyai mcp` as a user runs it: a real process, over HTTP (found through
 * its banner, stopped with SIGTERM) and over stdio (the protocol on stdout,
 * nothing else).
 */
import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { callParams, initializeParams, rpcNotification, rpcRequest } from "../../support/mcp.js"
import { post } from "../../support/mcp.js"
import { mcpBanner, startMcp } from "../../support/programProcess.js"
import { startMcpStdio } from "../../support/mcpStdio.js"
import { runTs } from "../../support/process.js"
import { field } from "../../support/server.js"
import { tempDir } from "../../support/tempDir.js"

describe("easyai mcp over HTTP (a real process)", () => {
  it.scoped("prints its banner, serves /mcp and /health, and exits 0 on SIGTERM", () =>
    Effect.gen(function*() {
      const { banner: [banner, summary], port, process } = yield* startMcp()
      expect(banner).toMatch(mcpBanner)
      expect(port).toBeGreaterThan(0)
      // The defaults: datetime, plan, web_search, web_fetch, tool_lookup.
      expect(summary).toBe("  tools 5 · auth off · sessions on · cors none")
      const url = `http://127.0.0.1:${port}/mcp`
      const initialized = yield* post(url, rpcRequest(1, "initialize", initializeParams()))
      expect(initialized.status).toBe(200)
      expect(field(initialized.body, "result", "serverInfo", "name")).toBe("easyai")
      expect(initialized.session).toMatch(/^[0-9a-f-]{36}$/)
      const session = { "mcp-session-id": initialized.session ?? "" }
      expect((yield* post(url, rpcNotification("notifications/initialized"), session)).status).toBe(202)
      const now = yield* post(url, rpcRequest(2, "tools/call", callParams("datetime", { timezone: "UTC" })), session)
      expect(field(now.body, "result", "structuredContent", "timeZone")).toBe("UTC")
      const health = yield* Effect.scoped(Effect.flatMap(
        Effect.flatMap(HttpClient.HttpClient, (client) => client.get(`http://127.0.0.1:${port}/health`)),
        (response) => response.json
      ))
      expect(health).toEqual({ status: "ok", tools: 5, sessions: 1, compat: { mcp: ["/mcp"] } })
      yield* process.kill("SIGTERM")
      expect(Number(yield* process.exitCode)).toBe(0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })

  it.scoped("follows --tools, --no-sessions and --api-key", () =>
    Effect.gen(function*() {
      const { banner: [, summary], port, process } = yield* startMcp("--tools", "datetime", "--no-sessions", "--api-key", "sekret")
      expect(summary).toBe("  tools 1 · auth on · sessions off · cors none")
      const url = `http://127.0.0.1:${port}/mcp`
      expect((yield* post(url, rpcRequest(1, "tools/list"))).status).toBe(401)
      const listed = yield* post(url, rpcRequest(1, "tools/list"), { authorization: "Bearer sekret" })
      expect(listed.status).toBe(200)
      expect(field(listed.body, "result", "tools", 0, "name")).toBe("datetime")
      expect(field(listed.body, "result", "tools", 1)).toBeUndefined()
      const initialized = yield* post(url, rpcRequest(2, "initialize", initializeParams()), { authorization: "Bearer sekret" })
      expect(initialized.session).toBeUndefined()
      yield* process.kill("SIGTERM")
      expect(Number(yield* process.exitCode)).toBe(0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })

  it.live("refuses --allow-bash without --sandbox in one line, exit code 1", () =>
    Effect.gen(function*() {
      const { exitCode, stderr, stdout } = yield* runTs("src/programs/cli/main.ts", "mcp", "--allow-bash")
      expect(exitCode).toBe(1)
      expect(stdout).toBe("")
      expect(stderr).toBe("easyai mcp: --allow-bash needs --sandbox DIR: the shell runs inside the sandbox")
    }), { timeout: 60_000 })
})

describe("easyai mcp --stdio (a real process)", () => {
  it.scoped("writes only JSON-RPC replies to stdout, answers bad lines, and ends with its stdin", () =>
    Effect.gen(function*() {
      const { finish, reply, send } = yield* startMcpStdio("--tools", "datetime,tool_lookup")

      yield* send("{this is not json")
      const malformed = yield* reply
      expect(field(malformed, "id")).toBeNull()
      expect(field(malformed, "error", "code")).toBe(-32700)

      yield* send(JSON.stringify(rpcRequest(1, "ping")))
      expect(yield* reply).toEqual({ jsonrpc: "2.0", id: 1, result: {} })

      yield* send(JSON.stringify(rpcRequest(2, "initialize", initializeParams("2025-06-18"))))
      const initialized = yield* reply
      expect(field(initialized, "result", "protocolVersion")).toBe("2025-06-18")
      expect(field(initialized, "result", "serverInfo", "name")).toBe("easyai")

      // A notification gets no line: the next line is the answer to the request after it.
      yield* send(JSON.stringify(rpcNotification("notifications/initialized")))
      yield* send(JSON.stringify(rpcRequest("list", "tools/list")))
      const listed = yield* reply
      expect(field(listed, "id")).toBe("list")
      expect(field(listed, "result", "tools", 0, "name")).toBe("datetime")
      expect(field(listed, "result", "tools", 1, "name")).toBe("tool_lookup")
      expect(field(listed, "result", "tools", 2)).toBeUndefined()

      yield* send(JSON.stringify(rpcRequest(3, "tools/call", callParams("datetime", { timezone: "Europe/Berlin" }))))
      const now = yield* reply
      expect(field(now, "result", "isError")).toBe(false)
      expect(field(now, "result", "structuredContent", "timeZone")).toBe("Europe/Berlin")

      yield* send(JSON.stringify([rpcRequest(4, "ping")]))
      expect(field(yield* reply, "error", "code")).toBe(-32600)
      yield* send("[".repeat(100_000) + "]".repeat(100_000))
      expect(field(yield* reply, "error", "code")).toBe(-32700)
      yield* send(JSON.stringify(rpcRequest(5, "resources/list")))
      expect(field(yield* reply, "error", "code")).toBe(-32601)
      // Blank lines are skipped, and a ping still answers after all of that.
      yield* send("")
      yield* send(JSON.stringify(rpcRequest(6, "ping")))
      expect(yield* reply).toEqual({ jsonrpc: "2.0", id: 6, result: {} })

      const { exitCode, rest } = yield* finish
      expect(exitCode).toBe(0)
      expect([...rest]).toEqual([])
    }), { timeout: 120_000 })

  it.scoped("answers requests sent together, each by its id", () =>
    Effect.gen(function*() {
      const { finish, reply, send } = yield* startMcpStdio("--tools", "datetime")
      const ids = Array.from({ length: 40 }, (_, index) => index)
      for (const id of ids) yield* send(JSON.stringify(id % 2 === 0 ? rpcRequest(id, "ping") : rpcRequest(id, "tools/call", callParams("datetime", {}))))
      const replies = yield* Effect.forEach(ids, () => reply)
      expect(replies.map((message) => field(message, "id")).sort((a, b) => Number(a) - Number(b))).toEqual(ids)
      expect(replies.every((message) => field(message, "error") === undefined)).toBe(true)
      const { exitCode } = yield* finish
      expect(exitCode).toBe(0)
    }), { timeout: 120_000 })

  it.scoped("sends its logs to stderr, never to stdout", () =>
    Effect.gen(function*() {
      // A broken skill is logged as an error while the tools load.
      const skills = tempDir("easyai-mcp-skills-")
      mkdirSync(path.join(skills, "broken"))
      writeFileSync(path.join(skills, "broken", "SKILL.md"), "no frontmatter here")
      const { finish, reply, send } = yield* startMcpStdio("--skills", skills)
      yield* send(JSON.stringify(rpcRequest(1, "ping")))
      expect(yield* reply).toEqual({ jsonrpc: "2.0", id: 1, result: {} })
      const { exitCode, rest, stderr } = yield* finish
      expect(exitCode).toBe(0)
      expect([...rest]).toEqual([])
      expect([...stderr].join("\n")).toContain("no frontmatter")
    }), { timeout: 120_000 })
})
