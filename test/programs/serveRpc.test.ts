/**
 * `easyai serve` drives whole agent sessions at /rpc on a real model: a
 * remote session answers over loopback HTTP behind the API key, and with
 * --sessions-dir it resumes after the server process is restarted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { RemoteSession, Session } from "easyai"
import { runCli } from "../support/process.js"
import { startServeSmall } from "../support/programProcess.js"
import { tempDir } from "../support/tempDir.js"

const key = "serve-rpc-key"

describe("easyai serve /rpc", () => {
  it.live("a remote session on the real model resumes after the server restarts (--sessions-dir)", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = tempDir()
      const first = yield* Scope.make()
      const server = yield* Scope.extend(startServeSmall("--no-tools", "--system", "You tell stories.", "--sessions-dir", dir, "--api-key", key), first)
      const opened = yield* Effect.gen(function*() {
        const session = yield* Session
        const turn = yield* session.chat("Once upon a time", { maxTokens: 8 })
        expect(turn._tag).toBe("TurnComplete")
        return { id: (yield* RemoteSession.RemoteSession).id, history: yield* session.history }
      }).pipe(Effect.provide(RemoteSession.layer({ url: server.url, apiKey: key })))
      expect(opened.history.map((message) => message._tag)).toEqual(["UserMessage", "AssistantMessage"])
      yield* Scope.close(first, Exit.void)

      const again = yield* startServeSmall("--no-tools", "--system", "You tell stories.", "--sessions-dir", dir, "--api-key", key)
      const resumed = yield* Effect.gen(function*() {
        const remote = yield* RemoteSession.RemoteSession
        return { resumed: remote.resumed, history: yield* (yield* Session).history }
      }).pipe(Effect.provide(RemoteSession.layer({ url: again.url, apiKey: key, resume: opened.id })))
      expect(resumed.resumed).toBe(true)
      expect(resumed.history).toEqual(opened.history)
    })), 180_000)

  it.live("a session count or lifetime below 1 is refused with one line", () =>
    Effect.gen(function*() {
      const run = yield* runCli({ cwd: tempDir() }, "serve", "--model", "absent.gguf", "--max-sessions", "0")
      expect(run.exitCode).toBe(2)
      expect(run.stderr).toContain("--max-sessions: expected")
      expect(run.stderr.split("\n").length).toBe(1)
    }), 60_000)
})
