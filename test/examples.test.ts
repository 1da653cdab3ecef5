import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { ScriptedChatModel } from "easyai"
import { conversationModel } from "./support/conversationModel.js"
import { testModels } from "./support/models.js"
import { openaiPeer } from "./support/openaiPeer.js"
import { runTs, runTsEnv } from "./support/process.js"
import { baseUrl, served } from "./support/server.js"

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
