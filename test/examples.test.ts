import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { ScriptedChatModel } from "easyai/testing"
import { conversationModel } from "./support/conversationModel.js"
import { testModels } from "./support/models.js"
import { openaiPeer } from "./support/openaiPeer.js"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { loopbackServer } from "./support/loopbackServer.js"
import { runTs, runTsEnv } from "./support/process.js"
import { baseUrl, served } from "./support/server.js"
import { tempDir } from "./support/tempDir.js"

describe("examples", () => {
  it.live("hello.ts answers in three lines", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* runTs("examples/hello.ts")
      expect(exitCode).toBe(0)
      expect(stdout).toBe("2 + 2 = 4.\n")
    }))

  it.live("custom-tool.ts runs a ten-line tool through the agent loop", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* runTs("examples/custom-tool.ts")
      expect(exitCode).toBe(0)
      expect(stdout).toBe("[roll_dice] rolled 20 on a 20-sided die\nYou rolled a 20.\n")
      // A first tool needs no Effect: neither the example nor the README's snippet imports it.
      expect(readFileSync("examples/custom-tool.ts", "utf8")).not.toMatch(/from "effect"/)
      const readme = readFileSync("README.md", "utf8")
      const snippet = readme.slice(readme.indexOf("const rollDice = tool({") - 200, readme.indexOf("addTool(rollDice)"))
      expect(snippet).toContain(`import { easyai, tool } from "easyai"`)
      expect(snippet).not.toMatch(/from "effect"/)
    }))

  for (const model of testModels) {
    it.live(`local.ts answers from a real model: ${model.name}`, () =>
      Effect.gen(function*() {
        const { exitCode, stderr, stdout } = yield* runTs("examples/local.ts", model.path)
        expect(exitCode, stderr).toBe(0)
        expect(stdout.trim().length).toBeGreaterThan(0)
      }), 60_000)
  }

  it.live("local.ts fails with a typed, readable error for a missing model", () =>
    Effect.gen(function*() {
      const { exitCode, stderr } = yield* runTs("examples/local.ts", "/nonexistent/model.gguf")
      expect(exitCode).not.toBe(0)
      expect(stderr).toContain("ModelLoadError")
      expect(stderr).toContain("no such file")
    }), 60_000)

  it.live("remote.ts asks an OpenAI-compatible peer on loopback", () =>
    Effect.scoped(Effect.gen(function*() {
      const peer = yield* openaiPeer({ turns: [ScriptedChatModel.reply("2 + 2 = 4.")] })
      const { exitCode, stderr, stdout } = yield* runTs("examples/remote.ts", peer.url, "peer-model")
      expect(exitCode, stderr).toBe(0)
      expect(stdout).toBe("2 + 2 = 4.\n")
      expect(peer.chatBodies()[0]).toMatchObject({ model: "peer-model", stream: true })
    })), 60_000)

  it.live("agent.ts has every built-in tool and a custom one, and uses them", () =>
    Effect.gen(function*() {
      const sandbox = tempDir()
      const { exitCode, stderr, stdout } = yield* runTs("examples/agent.ts", sandbox, tempDir())
      expect(exitCode, stderr).toBe(0)
      const tools = stdout.split("\n").find((line) => line.startsWith("tools: "))?.slice(7).split(", ") ?? []
      expect(tools).toEqual(expect.arrayContaining([
        "datetime", "plan", "web_search", "web_fetch", "fs_read", "fs_write", "bash", "evaluate", "knowledge_save",
        "shout", "system_load", "system_memory", "system_disk_usage", "system_processes", "tool_lookup"
      ]))
      expect(stdout).toContain("[shout] TOOLS READY\n")
      expect(stdout).toContain("Done: shouted and wrote /note.md.\n")
      expect(readFileSync(path.join(sandbox, "note.md"), "utf8")).toBe("written by the agent\n")
    }), 60_000)

  it.live("chat.ts is a bare chat that remembers the conversation", () =>
    Effect.gen(function*() {
      const { exitCode, stderr, stdout } = yield* runTs("examples/chat.ts")
      expect(exitCode, stderr).toBe(0)
      expect(stdout).toBe("Hello, Ada.\nYour name is Ada.\n4 messages in the conversation\n")
    }), 60_000)

  it.live("chat.ts against a peer sends no tools and only its own system prompt", () =>
    Effect.scoped(Effect.gen(function*() {
      const peer = yield* openaiPeer({ turns: [ScriptedChatModel.reply("Hi Ada."), ScriptedChatModel.reply("Ada.")] })
      const { exitCode, stderr, stdout } = yield* runTs("examples/chat.ts", `${peer.url}/v1`, "peer-model")
      expect(exitCode, stderr).toBe(0)
      expect(stdout).toBe("Hi Ada.\nAda.\n4 messages in the conversation\n")
      const second = peer.chatBodies()[1]
      expect(second?.["tools"]).toBeUndefined()
      expect(second?.["messages"]).toMatchObject([
        { role: "system", content: expect.stringMatching(/^You are a friendly, brief assistant\./) },
        { role: "user" },
        { role: "assistant", content: "Hi Ada." },
        { role: "user" }
      ])
    })), 60_000)

  it.live("recipes/today-is.ts: a tool without parameters", () =>
    Effect.gen(function*() {
      const { exitCode, stderr, stdout } = yield* runTs("examples/recipes/today-is.ts")
      expect(exitCode, stderr).toBe(0)
      const weekday = new Date().toLocaleDateString("en-US", { weekday: "long" })
      expect(stdout).toBe(`today_is: ${weekday}\nEnjoy your day.\n`)
    }), 60_000)

  it.live("recipes/weather.ts calls a weather API, served here on loopback, and reports its failures in one line", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* loopbackServer((req, res) => {
        const city = new URL(req.url ?? "/", "http://127.0.0.1").searchParams.get("city")
        if (city === "Paris") {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify({ city: "Paris", temperature_c: 18.5, conditions: "light rain" }))
        } else res.writeHead(404, { "content-type": "application/json" }).end("{}")
      })
      const paris = yield* runTs("examples/recipes/weather.ts", api.base, "Paris")
      expect(paris.exitCode, paris.stderr).toBe(0)
      expect(paris.stdout).toBe("weather: Paris: 18.5 °C, light rain\nThere you go.\n")
      expect(api.hits).toEqual(["/current?city=Paris"])
      const nowhere = yield* runTs("examples/recipes/weather.ts", api.base, "Atlantis")
      expect(nowhere.exitCode, nowhere.stderr).toBe(0)
      expect(nowhere.stdout).toContain(`error: get_weather: the weather service could not answer for "Atlantis" (ResponseError)`)
    })), 60_000)

  it.live("remote-agent.ts drives an easyai server's agent: the server's tool runs, approved from here", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const { exitCode, stderr, stdout } = yield* runTsEnv({ EASYAI_API_KEY: "example-key" }, undefined, "examples/remote-agent.ts", url, "time yes")
      expect(exitCode, stderr).toBe(0)
      const lines = stdout.trimEnd().split("\n")
      expect(lines[0]).toBe("[datetime] {}")
      expect(lines[1]).toMatch(/^tool said: /)
      expect(lines.at(-1)).toMatch(/^session [0-9a-f]{32}$/)
    }).pipe(Effect.provide(served({
      model: conversationModel,
      preamble: { timeZone: "UTC" },
      server: { apiKey: Redacted.make("example-key") }
    }))), 60_000)
})
