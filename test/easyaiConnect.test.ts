/**
 * `easyai.connect`: the façade on a session of an easyai server's agent,
 * with the same `ask`/`stream` as a local agent.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ApprovalLive, ConfigurationError, easyai } from "easyai"
import { conversationModel } from "./support/conversationModel.js"
import { baseUrl, served } from "./support/server.js"

const server = () => served({ model: conversationModel, preamble: { timeZone: "UTC" } })

describe("easyai.connect", () => {
  it.live("asks and streams on the server's agent; the session resumes from another agent by its id", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const agent = easyai.connect(url)
      expect(yield* Effect.promise(() => agent.ask("echo hi there"))).toBe("hi there")
      const seen = yield* Effect.promise(async () => {
        const tags: Array<string> = []
        for await (const event of agent.stream("time yes")) tags.push(event._tag)
        return tags
      })
      expect(seen).toContain("ToolCallStarted")
      expect(seen).toContain("ToolCallFinished")
      expect(seen.at(-1)).toBe("TurnComplete")
      const id = yield* Effect.promise(() => agent.sessionId())
      expect(id).toMatch(/^[0-9a-f]{32}$/)
      yield* Effect.promise(() => agent.close())

      const again = easyai.connect(url, { resume: id ?? "" })
      const history = yield* Effect.promise(() => again.history())
      expect(history.map((message) => message._tag)).toEqual([
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolMessage",
        "AssistantMessage"
      ])
      yield* Effect.promise(() => again.close())
    }).pipe(Effect.provide(server())), 30_000)

  it.live("its approval gate answers the server; its system prompt is the session's; a local toolbelt is refused", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const agent = easyai.connect(url).approval(ApprovalLive.deny("not from this program")).system("You are terse.")
      expect(yield* Effect.promise(() => agent.ask("time yes"))).toContain("not from this program")
      expect(yield* Effect.promise(() => agent.renderSystem())).toContain("You are terse.")
      yield* Effect.promise(() => agent.close())
      expect(() => easyai.connect(url).sandbox("/tmp")).toThrow(ConfigurationError)
      const plain = easyai.withModel(conversationModel)
      expect(yield* Effect.promise(() => plain.sessionId())).toBeUndefined()
      yield* Effect.promise(() => plain.close())
    }).pipe(Effect.provide(server())), 30_000)
})
