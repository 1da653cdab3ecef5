/**
 * `easyai serve --temperature …/--max-tokens …` (or `[SERVER]`/`[ENGINE]`):
 * the operator's shapers and `max_tokens` apply to requests that set none,
 * over the preset's; a request's own fields still win.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ScriptedChatModel } from "easyai/testing"
import { chat, scriptedRequests, scriptedServer } from "../../support/server.js"

const user = (content: string) => ({ role: "user", content })

describe("the operator's sampling", () => {
  it.live("fills what a request leaves out, and the request's own fields win", () =>
    Effect.gen(function*() {
      expect((yield* chat({ messages: [user("hi")] })).status).toBe(200)
      expect((yield* chat({ messages: [user("hi")], temperature: 0.9, max_tokens: 5 })).status).toBe(200)
      const [first, second] = yield* scriptedRequests
      expect(first?.sampling).toMatchObject({ temperature: 0.3, topK: 9 })
      expect(first?.maxTokens).toBe(17)
      expect(second?.sampling).toMatchObject({ temperature: 0.9, topK: 9 })
      expect(second?.maxTokens).toBe(5)
    }).pipe(Effect.provide(scriptedServer(
      [ScriptedChatModel.reply("one"), ScriptedChatModel.reply("two")],
      { server: { sampling: { temperature: 0.3, topK: 9 }, maxTokens: 17 } }
    ))))
})
