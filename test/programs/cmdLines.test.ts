/**
 * `CMD:` lines in the hybrid shell, on a real pseudo-terminal against a
 * loopback server replaying scripted turns: offered through the approval
 * gate, run in `$SHELL`, their output handed back when the person says so.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ScriptedChatModel } from "easyai/testing"
import { commandLines } from "../../src/programs/cli/cmdLines.js"
import { onTerminal } from "../support/pty.js"
import { baseUrl, scriptedServer, withoutClock } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

const requests = Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)

describe("CMD: lines", () => {
  it("are the lines starting with CMD:, without backticks", () => {
    expect(commandLines("Run this:\nCMD: ls -la\n  CMD: `df -h`\nnot CMD: this\nCMD:\n")).toEqual(["ls -la", "df -h"])
  })

  it.scopedLive("are offered through the gate, run in $SHELL, and their output goes back to the model when the person says so", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const home = tempDir()
      const terminal = yield* onTerminal(["--url", url, "--shell", "--isolate", "off"], home, { HOME: home, SHELL: "/bin/sh" })
      yield* terminal.waitFor("~ $ ")
      yield* terminal.type("> what is six times seven?\r")
      yield* terminal.waitFor(`call 'bash({"command":"echo product-$((6*7))"})'? [y/N] `)
      yield* terminal.type("y\r")
      yield* terminal.waitFor("hand the output of 'echo product-$((6*7))' to the model? [y/N] ")
      expect(yield* terminal.screen).toMatch(/\nproduct-42\r?\n/)
      yield* terminal.type("y\r")
      yield* terminal.waitFor("It is 42.")
      // The model was told how to suggest a command.
      expect((yield* requests)[0]?.messages[0]?.content).toContain("starting with `CMD:`")
      const handedBack = (yield* requests)[1]?.messages.at(-1)
      expect(handedBack?._tag).toBe("UserMessage")
      expect(withoutClock(handedBack?.content ?? "")).toBe(
        "I ran `echo product-$((6*7))` (exit status 0). Its output:\n```\nproduct-42\n```"
      )

      // Declined at the gate: nothing runs, nothing goes back.
      yield* terminal.type("> and now?\r")
      yield* terminal.waitFor(`call 'bash({"command":"touch should-not-exist"})'? [y/N] `)
      yield* terminal.type("n\r")
      yield* terminal.waitFor("(not run: touch should-not-exist)")
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      expect(yield* requests).toHaveLength(3)
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.reply("Let the shell say it:\nCMD: echo product-$((6*7))"),
      ScriptedChatModel.reply("It is 42."),
      ScriptedChatModel.reply("CMD: touch should-not-exist")
    ]))), { timeout: 120_000 })
})
