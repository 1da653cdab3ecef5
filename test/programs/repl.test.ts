/**
 * The interactive chat on a real pseudo-terminal, against a loopback
 * server replaying scripted turns.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ScriptedChatModel } from "easyai/testing"
import { onTerminal } from "../support/pty.js"
import { baseUrl, requestsReach, scriptedServer } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"
import { McpEndpoint, standalone } from "../support/mcp.js"
import { echo } from "../support/tools.js"

describe("the REPL on a terminal", () => {
  it.scopedLive("streams answers, shows tool calls, stops a generation on Ctrl+C, and exits on Ctrl+D", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const terminal = yield* onTerminal(["--url", url, "--tools", "datetime"], tempDir())
      yield* terminal.waitFor("> ")
      yield* terminal.type("hi\r")
      yield* terminal.waitFor("Hello from the REPL.")
      yield* terminal.type("what time is it?\r")
      yield* terminal.waitFor("✓ datetime")
      yield* terminal.waitFor("It is now.")
      yield* terminal.type("tell me a long story\r")
      // The third model request is the one that never ends: the generation is running.
      yield* requestsReach(4)
      yield* terminal.waitFor("Once upon")
      yield* terminal.type("\x03")
      yield* terminal.waitFor("(stopped)")
      yield* terminal.type("/preset creative\r")
      yield* terminal.waitFor("[preset → creative]")
      yield* terminal.type("\x04")
      expect(yield* terminal.exited).toBe(0)
      const screen = yield* terminal.screen
      expect(screen.indexOf("Hello from the REPL.")).toBeLessThan(screen.indexOf("It is now."))
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.reply("Hello from the REPL."),
      ScriptedChatModel.toolCall("datetime", {}),
      ScriptedChatModel.reply("It is now."),
      [...ScriptedChatModel.text("Once upon a time"), ScriptedChatModel.delay("10 minutes")]
    ]))), { timeout: 120_000 })

  it.scopedLive("connects, lists and disconnects MCP servers with /mcp", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const mcp = yield* McpEndpoint
      const terminal = yield* onTerminal(["--url", url, "--no-tools"], tempDir())
      yield* terminal.waitFor("> ")
      yield* terminal.type(`/mcp connect ${mcp.url} tools\r`)
      yield* terminal.waitFor(/connected tools \(easyai [^)]*\): 1 tools/)
      yield* terminal.type("/mcp tools\r")
      yield* terminal.waitFor("tools.echo — Echo the text back.")
      yield* terminal.type("/mcp tool tools.echo\r")
      yield* terminal.waitFor("\"text\"")
      yield* terminal.type("/mcp list\r")
      yield* terminal.waitFor(`tools — ${mcp.url} · 1 tools`)
      yield* terminal.type("/mcp disconnect tools\r")
      yield* terminal.waitFor("disconnected tools")
      // What is not a URL is a stdio server's command line: one that does not exist is said in one line.
      yield* terminal.type("/mcp connect not-a-url\r")
      yield* terminal.waitFor("error: MCP server not-a-url: cannot start not-a-url")
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
    }).pipe(Effect.provide(Layer.merge(scriptedServer([]), standalone({}, { tools: [echo] })))), { timeout: 120_000 })

  it.scopedLive("Ctrl+C at the prompt clears the line; /exit leaves", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const terminal = yield* onTerminal(["--url", url, "--no-tools"], tempDir())
      yield* terminal.waitFor("> ")
      yield* terminal.type("half a thought")
      yield* terminal.type("\x03")
      yield* terminal.type("/help\r")
      yield* terminal.waitFor("/preset <name>")
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      // The cleared line was never sent to the model.
      expect(yield* Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)).toHaveLength(0)
    }).pipe(Effect.provide(scriptedServer([]))), { timeout: 120_000 })
})
