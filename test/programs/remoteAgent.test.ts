/**
 * `easyai --url … --remote-agent`: the server's agent, driven from the CLI
 * in another process. The server's tools run there; their calls render
 * here, approvals are asked on this terminal, and Ctrl+C stops the server's
 * running tool.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { conversationModel } from "../support/conversationModel.js"
import { runCli } from "../support/process.js"
import { processesWith, stillRunning, uniqueSleep } from "../support/processes.js"
import { onTerminal } from "../support/pty.js"
import { baseUrl, served } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

/** A server whose agent has bash in a temp sandbox. */
const server = () => served({ model: conversationModel, host: { root: tempDir(), bash: true }, preamble: { timeZone: "UTC" } })

describe("easyai --remote-agent", () => {
  it.live("one answer: the server's tool runs there and renders here; with no one to ask and no --yes it is denied", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const yes = yield* runCli({ cwd: tempDir() }, "--url", url, "--remote-agent", "--yes", "-p", "time yes")
      expect(yes.exitCode).toBe(0)
      expect(yes.stdout).toContain("tool said:")
      expect(yes.stdout).not.toContain("Error")
      expect(yes.stderr).toContain("datetime")
      const nobody = yield* runCli({ cwd: tempDir() }, "--url", url, "--remote-agent", "-p", "time yes")
      expect(nobody.exitCode).toBe(0)
      expect(nobody.stdout).toContain("no one is present to approve datetime")
    }).pipe(Effect.provide(server())), 60_000)

  it.live("refuses the flags that only make sense for a local agent, in one line", () =>
    Effect.gen(function*() {
      const run = yield* runCli({ cwd: tempDir() }, "--url", "http://127.0.0.1:9", "--remote-agent", "--continue", "-p", "hi")
      expect(run.exitCode).not.toBe(0)
      expect(run.stderr).toContain("--remote-agent runs the server's agent")
      expect(run.stderr).toContain("drop --continue")
      expect(run.stderr.split("\n").length).toBe(1)
    }), 60_000)

  it.live("in the REPL: approvals are asked on the terminal, and Ctrl+C stops the server's running tool", () =>
    Effect.scoped(Effect.gen(function*() {
      const url = yield* baseUrl
      const terminal = yield* onTerminal(["--url", url, "--remote-agent"], tempDir())
      yield* terminal.waitFor(/The server's agent runs this chat: session [0-9a-f]{32}\./)
      yield* terminal.waitFor("> ")
      yield* terminal.type("time yes\r")
      yield* terminal.waitFor("call 'datetime({})'? [y/N]")
      yield* terminal.type("y\r")
      yield* terminal.waitFor("tool said:")
      const marker = uniqueSleep()
      yield* terminal.type(`slow ${marker}\r`)
      yield* terminal.waitFor(`call 'bash(`)
      yield* terminal.type("y\r")
      const pids = yield* processesWith(`sleep ${marker}`)
      const before = (yield* terminal.screen).length
      yield* terminal.type("\x03")
      yield* terminal.waitFor("(stopped)", before)
      expect(yield* stillRunning(pids)).toEqual([])
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
    })).pipe(Effect.provide(server())), 120_000)

  it.live("--show-system-prompt prints the prompt the server's agent composes, not a local one", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const run = yield* runCli({ cwd: tempDir() }, "--url", url, "--remote-agent", "--show-system-prompt")
      expect(run.exitCode, run.stderr).toBe(0)
      expect(run.stdout).toContain("You are the server's own agent.")
    }).pipe(Effect.provide(served({ model: conversationModel, server: { system: "You are the server's own agent." } }))), 60_000)
})
