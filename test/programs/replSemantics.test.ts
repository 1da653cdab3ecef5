/**
 * The REPL's commands and Ctrl+C as the reference has them, and the hybrid
 * shell's confirmation before the model's `bash` calls, on a real
 * pseudo-terminal against a loopback server replaying scripted turns.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ScriptedChatModel } from "easyai/testing"
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { onTerminal } from "../support/pty.js"
import { baseUrl, scriptedServer, withoutClock } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

const requests = Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)

/** What each message of the `index`th request said, by role, without clock notes. */
const conversationOf = (index: number) =>
  Effect.map(requests, (all) =>
    (all[index]?.messages ?? [])
      .filter((message) => message._tag !== "SystemMessage")
      .map((message) => `${message._tag}: ${withoutClock(message.content)}`))

const interrupted = "[interrupted by the user]"

describe("REPL semantics on a terminal", () => {
  it.scopedLive("keeps lines typed before the prompt; Ctrl+C keeps what was shown, marked; /clear and /reset clear; /preset says when a name is unknown", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const home = tempDir()
      const terminal = yield* onTerminal(["--url", url, "--tools", "plan"], home)
      // Typed at once, while the program is still starting: answered once the prompt is ready.
      yield* terminal.type("typed early\r")
      yield* terminal.waitFor("Answer to the early line.")
      expect(yield* conversationOf(0)).toEqual(["UserMessage: typed early"])

      // A turn stopped with Ctrl+C stays on screen and in the conversation, marked as interrupted.
      yield* terminal.type("tell me a long story\r")
      yield* terminal.waitFor("Once upon a time")
      yield* terminal.type("\x03")
      yield* terminal.waitFor("(stopped)")
      yield* terminal.type("go on\r")
      yield* terminal.waitFor("The end.")
      expect(yield* conversationOf(2)).toEqual([
        "UserMessage: typed early",
        "AssistantMessage: Answer to the early line.",
        "UserMessage: tell me a long story",
        `AssistantMessage: Once upon a time\n\n${interrupted}`,
        "UserMessage: go on"
      ])
      const saved = readFileSync(path.join(home, ".easyai_session"), "utf8")
      expect(saved).toContain(interrupted)

      // /clear: the conversation goes, the screen and the tools stay.
      yield* terminal.type("/clear\r")
      yield* terminal.waitFor("(conversation cleared; tools and system prompt kept)")
      expect(yield* terminal.screen).toContain("Once upon a time")
      yield* terminal.type("plan it\r")
      yield* terminal.waitFor("Planned.")
      expect(yield* conversationOf(3)).toEqual(["UserMessage: plan it"])

      // /reset clears the plan as well, and says so.
      yield* terminal.type("/reset\r")
      yield* terminal.waitFor("(conversation and plan cleared)")
      yield* terminal.type("/plan\r")
      yield* terminal.waitFor("(the plan is empty)")

      yield* terminal.type("/preset foo\r")
      yield* terminal.waitFor(`unknown preset "foo"; presets: `)
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      expect(yield* requests).toHaveLength(5)
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.reply("Answer to the early line."),
      [...ScriptedChatModel.text("Once upon a time"), ScriptedChatModel.delay("10 minutes")],
      ScriptedChatModel.reply("The end."),
      ScriptedChatModel.toolCall("plan", { action: "add", items: [{ text: "first step" }] }),
      ScriptedChatModel.reply("Planned.")
    ]))), { timeout: 120_000 })

  it.scopedLive("--shell asks before the model's bash call runs; no keeps it from running, --auto-approve bash does not ask", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const home = tempDir()
      const env = { HOME: home, SHELL: "/bin/sh" }
      const terminal = yield* onTerminal(["--url", url, "--shell", "--isolate", "off"], home, env)
      yield* terminal.waitFor("~ $ ")
      yield* terminal.type("> make a file\r")
      yield* terminal.waitFor(`call 'bash({"command":"touch made-by-model"})'? [y/N] `)
      yield* terminal.type("n\r")
      yield* terminal.waitFor("Declined, fine.")
      expect(existsSync(path.join(home, "made-by-model"))).toBe(false)
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)

      const trusted = yield* onTerminal(["--url", url, "--shell", "--isolate", "off", "--auto-approve", "bash"], home, env)
      yield* trusted.waitFor("~ $ ")
      yield* trusted.type("> make a file\r")
      yield* trusted.waitFor("Made it.")
      expect(existsSync(path.join(home, "made-by-model"))).toBe(true)
      expect(yield* trusted.screen).not.toContain("[y/N]")
      yield* trusted.type("/exit\r")
      expect(yield* trusted.exited).toBe(0)
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.toolCall("bash", { command: "touch made-by-model" }),
      ScriptedChatModel.reply("Declined, fine."),
      ScriptedChatModel.toolCall("bash", { command: "touch made-by-model" }),
      ScriptedChatModel.reply("Made it.")
    ]))), { timeout: 120_000 })
})
