/**
 * The interactive chat's newer features on a real pseudo-terminal, against
 * a loopback server replaying scripted turns: /compress, the live plan and
 * /plan, and the approval of an MCP server's tool calls (asked, declined,
 * or auto-approved by pattern).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { SessionLive, Usage } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { writeFileSync } from "node:fs"
import type { ChatMessage } from "../../src/domain/Message.js"
import { McpEndpoint, standalone } from "../support/mcp.js"
import { onTerminal } from "../support/pty.js"
import { baseUrl, requestsReach, scriptedRequests, scriptedServer, withoutClock } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"
import { echo } from "../support/tools.js"

const requests = scriptedRequests

/** A message as `Tag:content` (without the newest user message's clock note), the system prompt as `system`. */
const shown = (message: ChatMessage): string =>
  message._tag === "SystemMessage" ? "system" : `${message._tag}:${withoutClock(message.content)}`

/** The conversation saved in `cwd`, as {@link shown} lines. */
const savedHistory = (cwd: string): ReadonlyArray<string> => {
  const saved = JSON.parse(readFileSync(path.join(cwd, ".easyai_session"), "utf8")) as {
    readonly history: ReadonlyArray<{ readonly _tag: string; readonly content: string }>
  }
  return saved.history.map((message) => `${message._tag}:${message.content}`)
}

/** How many times `text` occurs in `screen`. */
const occurrences = (screen: string, text: string): number => screen.split(text).length - 1

const recap = "Recap: the user asked two questions, both answered."

describe("/compress in the REPL", () => {
  it.scopedLive("replaces the conversation with the model's recap, on screen, in the next request and in the session file", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const cwd = tempDir()
      const terminal = yield* onTerminal(["--url", url, "--no-tools"], cwd)
      yield* terminal.waitFor("> ")
      // Nothing said yet: nothing to compress, and the model is not asked.
      yield* terminal.type("/compress\r")
      yield* terminal.waitFor("(nothing to compress)")
      expect(yield* requests).toHaveLength(0)

      yield* terminal.type("first question\r")
      yield* terminal.waitFor("First answer.")
      yield* terminal.type("second question\r")
      yield* terminal.waitFor("Second answer.")
      yield* terminal.type("/compress\r")
      yield* terminal.waitFor("(4 messages replaced by this recap)")
      yield* terminal.waitFor(recap)

      // The recap request went over the whole conversation, with no tool allowed.
      const compressing = (yield* requests)[2]
      expect(compressing?.messages.map(shown)).toEqual([
        "system",
        "UserMessage:first question",
        "AssistantMessage:First answer.",
        "UserMessage:second question",
        "AssistantMessage:Second answer.",
        `UserMessage:${SessionLive.recapRequest}`
      ])
      expect(compressing?.toolChoice).toBe("none")
      // The saved conversation is the recap alone.
      expect(savedHistory(cwd)).toEqual([`UserMessage:${SessionLive.recapRequest}`, `AssistantMessage:${recap}`])

      yield* terminal.type("third question\r")
      yield* terminal.waitFor("Third answer.")
      const next = (yield* requests)[3]
      expect(next?.messages.map(shown)).toEqual([
        "system",
        `UserMessage:${SessionLive.recapRequest}`,
        `AssistantMessage:${recap}`,
        "UserMessage:third question"
      ])
      expect(next?.messages.at(-1)?.content).toMatch(/^third question\n\nSent: \d{4}-/)
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      expect(savedHistory(cwd)).toEqual([
        `UserMessage:${SessionLive.recapRequest}`,
        `AssistantMessage:${recap}`,
        "UserMessage:third question",
        "AssistantMessage:Third answer."
      ])
      expect(yield* requests).toHaveLength(4)
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.reply("First answer."),
      ScriptedChatModel.reply("Second answer."),
      ScriptedChatModel.reply(recap),
      ScriptedChatModel.reply("Third answer.")
    ]))), { timeout: 120_000 })
})

describe("compressing by itself when the context is nearly full", () => {
  /** A turn that answers and reports it left the context 90% full. */
  const filling = (answer: string): ScriptedChatModel.Turn => [
    ...ScriptedChatModel.reply(answer),
    new Usage({ promptTokens: 800, completionTokens: 100, contextUsed: 900, contextSize: 1000 })
  ]

  it.scopedLive("compresses before the next turn, says so, and the turn goes on from the recap", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const cwd = tempDir()
      const terminal = yield* onTerminal(["--url", url, "--no-tools"], cwd)
      yield* terminal.waitFor("> ")
      yield* terminal.type("first question\r")
      yield* terminal.waitFor("First answer.")
      yield* terminal.type("second question\r")
      yield* terminal.waitFor("(the context is 90% full: compressing the conversation first; --no-auto-compress turns this off)")
      yield* terminal.waitFor("(2 messages replaced by this recap)")
      yield* terminal.waitFor("Second answer.")
      const [first, compressing, second] = yield* requests
      expect(first?.messages.map(shown)).toEqual(["system", "UserMessage:first question"])
      expect(compressing?.messages.map(shown)).toEqual([
        "system",
        "UserMessage:first question",
        "AssistantMessage:First answer.",
        `UserMessage:${SessionLive.recapRequest}`
      ])
      expect(second?.messages.map(shown)).toEqual([
        "system",
        `UserMessage:${SessionLive.recapRequest}`,
        `AssistantMessage:${recap}`,
        "UserMessage:second question"
      ])
      // The screen says it before the recap, and the recap before the answer.
      const screen = yield* terminal.screen
      expect(screen.indexOf("compressing the conversation first")).toBeLessThan(screen.indexOf(recap))
      expect(screen.indexOf(recap)).toBeLessThan(screen.indexOf("Second answer."))
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      expect(yield* requests).toHaveLength(3)
    }).pipe(Effect.provide(scriptedServer([
      filling("First answer."),
      ScriptedChatModel.reply(recap),
      ScriptedChatModel.reply("Second answer.")
    ]))), { timeout: 120_000 })

  /** Two questions on a context left 90% full, with auto-compression turned off by `args` or `ini`: no recap is asked for. */
  const keepsTheConversation = (args: ReadonlyArray<string>, ini?: string) =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const cwd = tempDir()
      if (ini !== undefined) writeFileSync(path.join(cwd, "easyai.ini"), ini)
      const terminal = yield* onTerminal(["--url", url, "--no-tools", ...args], cwd)
      yield* terminal.waitFor("> ")
      yield* terminal.type("first question\r")
      yield* terminal.waitFor("First answer.")
      yield* terminal.type("second question\r")
      yield* terminal.waitFor("Second answer.")
      expect((yield* requests)[1]?.messages.map(shown)).toEqual([
        "system",
        "UserMessage:first question",
        "AssistantMessage:First answer.",
        "UserMessage:second question"
      ])
      expect(yield* terminal.screen).not.toContain("compressing")
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      expect(yield* requests).toHaveLength(2)
    }).pipe(Effect.provide(scriptedServer([filling("First answer."), ScriptedChatModel.reply("Second answer.")])))

  it.scopedLive("--no-auto-compress turns it off", () => keepsTheConversation(["--no-auto-compress"]), { timeout: 120_000 })

  it.scopedLive("[cli] auto_compress = off turns it off", () => keepsTheConversation([], "[cli]\nauto_compress = off\n"), {
    timeout: 120_000
  })
})

describe("the plan in the REPL", () => {
  it.scopedLive("shows the checklist live as the model's plan tool changes it, and again on /plan", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const terminal = yield* onTerminal(["--url", url, "--tools", "plan"], tempDir())
      yield* terminal.waitFor("> ")
      yield* terminal.type("/plan\r")
      yield* terminal.waitFor("(the plan is empty)")

      // The plan tool runs in the CLI: the server only relays the model.
      yield* terminal.type("plan the fix\r")
      yield* terminal.waitFor("Planned.")
      const planned = yield* terminal.screen
      expect(occurrences(planned, "[ ] 1. read the config")).toBe(1)
      expect(occurrences(planned, "[ ] 2. fix the parser")).toBe(1)
      expect(planned).toContain("✓ plan")
      // Live: the checklist is on screen before the answer that follows the call.
      expect(planned.indexOf("[ ] 1. read the config")).toBeLessThan(planned.indexOf("Planned."))
      const afterAdd = (yield* requests)[1]?.messages.at(-1)
      expect(afterAdd?._tag).toBe("ToolMessage")
      expect(afterAdd?.content).toContain("- [ ] 2. fix the parser")

      yield* terminal.type("start on it\r")
      yield* terminal.waitFor("Started.")
      const started = yield* terminal.screen
      expect(occurrences(started, "[x] 1. read the config")).toBe(1)
      expect(occurrences(started, "[ ] 2. fix the parser")).toBe(2)
      expect(started.lastIndexOf("[x] 1. read the config")).toBeLessThan(started.indexOf("Started."))

      yield* terminal.type("/plan\r")
      yield* terminal.screen.pipe(
        Effect.repeat({
          until: (screen) => occurrences(screen, "[ ] 2. fix the parser") === 3,
          schedule: Schedule.spaced("20 millis")
        }),
        Effect.timeout("30 seconds")
      )
      const shownAgain = yield* terminal.screen
      expect(occurrences(shownAgain, "[x] 1. read the config")).toBe(2)
      expect(occurrences(shownAgain, "[ ] 1. read the config")).toBe(1)
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      expect(yield* requests).toHaveLength(4)
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.toolCall("plan", { action: "add", items: [{ text: "read the config" }, { text: "fix the parser" }] }),
      ScriptedChatModel.reply("Planned."),
      ScriptedChatModel.toolCall("plan", { action: "update", id: 1, status: "done" }),
      ScriptedChatModel.reply("Started.")
    ]))), { timeout: 120_000 })
})

describe("approving an MCP server's tool calls in the REPL", () => {
  const question = (text: string) => `call 'srv.echo(${JSON.stringify({ text })})'? [y/N] `

  it.scopedLive("asks; no makes the call an error the model reads, yes runs it", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const mcp = yield* McpEndpoint
      const terminal = yield* onTerminal(["--url", url, "--no-tools", "--mcp", `${mcp.url}=srv`], tempDir())
      yield* terminal.waitFor("> ")
      yield* terminal.type("echo hello there\r")
      yield* terminal.waitFor(question("hello there"))
      yield* terminal.type("n\r")
      yield* terminal.waitFor(`✗ srv.echo: srv__echo was not run: ${"the user declined this tool call"}`)
      yield* terminal.waitFor("Declined, fine.")
      const declined = (yield* requests)[1]?.messages.at(-1)
      expect(declined?._tag).toBe("ToolMessage")
      expect(declined?.content).toBe("srv__echo was not run: the user declined this tool call")

      yield* terminal.type("echo again\r")
      yield* terminal.waitFor(question("again"))
      yield* terminal.type("y\r")
      yield* terminal.waitFor("✓ srv.echo")
      yield* terminal.waitFor("Echoed.")
      const ran = (yield* requests)[3]?.messages.at(-1)
      expect(ran?._tag).toBe("ToolMessage")
      expect(ran?.content).toBe("again")

      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      // The answers went to the questions, not to the model as prompts.
      expect(yield* requests).toHaveLength(4)
    }).pipe(Effect.provide(Layer.merge(
      scriptedServer([
        ScriptedChatModel.toolCall("srv__echo", { text: "hello there" }),
        ScriptedChatModel.reply("Declined, fine."),
        ScriptedChatModel.toolCall("srv__echo", { text: "again" }),
        ScriptedChatModel.reply("Echoed.")
      ]),
      standalone({}, { tools: [echo] })
    ))), { timeout: 120_000 })

  it.scopedLive("with --auto-approve srv.* runs the call without asking", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const mcp = yield* McpEndpoint
      const terminal = yield* onTerminal(
        ["--url", url, "--no-tools", "--mcp", `${mcp.url}=srv`, "--auto-approve", "srv.*"],
        tempDir()
      )
      yield* terminal.waitFor("> ")
      yield* terminal.type("echo hello there\r")
      yield* terminal.waitFor("✓ srv.echo")
      yield* terminal.waitFor("Echoed.")
      expect(yield* terminal.screen).not.toContain("[y/N]")
      const ran = (yield* requests)[1]?.messages.at(-1)
      expect(ran?._tag).toBe("ToolMessage")
      expect(ran?.content).toBe("hello there")
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      yield* requestsReach(2)
    }).pipe(Effect.provide(Layer.merge(
      scriptedServer([
        ScriptedChatModel.toolCall("srv__echo", { text: "hello there" }),
        ScriptedChatModel.reply("Echoed.")
      ]),
      standalone({}, { tools: [echo] })
    ))), { timeout: 120_000 })
})
