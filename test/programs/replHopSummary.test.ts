/**
 * The REPL's summary line (context fill, tokens, speed) comes at every
 * thinking transition — after a tool hop's model turn, before its calls
 * run — and at the end of the turn, as the reference terminal prints it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Usage } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { onTerminal } from "../support/pty.js"
import { baseUrl, scriptedServer } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

describe("the REPL's summary line", () => {
  it.scopedLive("comes after each hop that generated, and at the end of the turn", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const terminal = yield* onTerminal(["--url", url, "--tools", "plan"], tempDir())
      yield* terminal.waitFor("> ")
      yield* terminal.type("plan it\r")
      yield* terminal.waitFor("Planned.")
      yield* terminal.waitFor("51 tok · 9.0 tk/s")
      const screen = yield* terminal.screen
      const hop = screen.indexOf("40 tok · 12.5 tk/s")
      expect(hop).toBeGreaterThan(-1)
      expect(hop).toBeLessThan(screen.indexOf("✓ plan"))
      expect(screen.indexOf("51 tok · 9.0 tk/s")).toBeGreaterThan(screen.indexOf("Planned."))
      expect(screen.split("40 tok · 12.5 tk/s")).toHaveLength(2)
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
    }).pipe(Effect.provide(scriptedServer([
      [
        ScriptedChatModel.call("plan", { action: "add", items: [{ text: "read the config" }] }),
        new Usage({ promptTokens: 30, completionTokens: 10, tokensPerSecond: 12.5 })
      ],
      [...ScriptedChatModel.reply("Planned."), new Usage({ promptTokens: 45, completionTokens: 6, tokensPerSecond: 9 })]
    ]))), { timeout: 120_000 })
})
