import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream, TestClock } from "effect"
import {
  AssistantMessage,
  ModelError,
  Session,
  SessionLive,
  SystemMessage,
  ToolMessage,
  ToolRegistry,
  UserMessage
} from "easyai"
import { interruptedMark } from "../../../src/services/Session.js"
import { builtinSystemPrompt } from "../../../src/domain/SystemPrompt.js"
import { hasNoDanglingToolCalls } from "../../../src/domain/Message.js"
import { presets } from "../../../src/domain/Sampling.js"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { scriptedSession } from "../../support/session.js"
import { echo, named } from "../../support/tools.js"

/** The default tools registered before a session's own, in split mode. */
const builtins = ["datetime", "plan", "web_search", "web_fetch"]

/** The clock note of a turn taken at the TestClock's start. */
const epochNote = "Sent: 1970-01-01 00:00 +0000 (UTC)"

const requests = Effect.flatMap(Scripted.ScriptedChatModel, (recorder) => recorder.requests)

describe("Session", () => {
  describe("system prompt composition", () => {
    it.effect("starts from the built-in base, then the preamble, then the tools catalogue", () =>
      Effect.gen(function*() {
        const session = yield* Session
        const system = yield* session.system
        expect(system.startsWith(builtinSystemPrompt)).toBe(true)
        expect(system).toContain("# AUTHORITATIVE DATE/TIME")
        expect(system.endsWith("- tool_lookup — List your tools, or read the full manual of one (name=<part of a tool name>).")).toBe(true)
      }).pipe(Effect.provide(scriptedSession([]))))

    it.effect("system(text) replaces the base verbatim", () =>
      Effect.gen(function*() {
        const system = yield* Effect.flatMap(Session, (s) => s.system)
        expect(system.startsWith("Be terse.\n\n# AUTHORITATIVE DATE/TIME")).toBe(true)
        expect(system).not.toContain("You are Deep")
      }).pipe(Effect.provide(scriptedSession([], { system: "Be terse." }))))

    it.effect("noBuiltinSystem with systemAppend authors the prompt from scratch", () =>
      Effect.gen(function*() {
        const system = yield* Effect.flatMap(Session, (s) => s.system)
        expect(system.startsWith("Only this.\n\n# AUTHORITATIVE")).toBe(true)
      }).pipe(Effect.provide(scriptedSession([], { noBuiltinSystem: true, systemAppend: ["Only this."] }))))

    it.effect("puts tool addenda before operator appends, appends in call order", () =>
      Effect.gen(function*() {
        const system = yield* Effect.flatMap(Session, (s) => s.system)
        expect(system.startsWith("BASE\n\nUSE SHOUT WISELY\n\nFIRST\n\nSECOND\n\n# AUTHORITATIVE")).toBe(true)
        expect(system).toContain("- shout — The shout tool.")
      }).pipe(Effect.provide(scriptedSession([], {
        system: "BASE",
        tools: [named("shout", "always", "USE SHOUT WISELY")],
        systemAppend: ["FIRST", "SECOND"]
      }))))

    it.effect("applies preamble options", () =>
      Effect.gen(function*() {
        const system = yield* Effect.flatMap(Session, (s) => s.system)
        expect(system).not.toContain("# AUTHORITATIVE DATE/TIME")
        expect(system).toContain("# CITE SOURCES")
      }).pipe(Effect.provide(scriptedSession([], { preamble: { injectDateTime: false, citeSources: true } }))))

    it.effect("withDefaultTools(false) registers no default tools", () =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry
        expect(yield* registry.specs).toEqual([])
        expect(yield* Effect.flatMap(Session, (s) => s.system)).toContain("You have no tools in this session.")
      }).pipe(Effect.provide(scriptedSession([], { withDefaultTools: false }))))
  })

  describe("the semantics table", () => {
    const conversation = [Scripted.reply("first answer"), Scripted.reply("second answer")]

    it.effect("refreshSystem keeps the history and recomputes dynamic appends", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* session.chat("hello")
        expect(yield* session.system).toContain("counter=1")
        yield* session.refreshSystem
        expect(yield* session.system).toContain("counter=2")
        expect(yield* session.history).toHaveLength(2)
      }).pipe(Effect.provide(scriptedSession(conversation, { systemAppend: [counter()] }))))

    it.effect("appendSystem takes effect at the next refresh; renderSystem shows it without installing it", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* session.appendSystem("LATE RULE")
        expect(yield* session.renderSystem).toContain("LATE RULE")
        expect(yield* session.system).not.toContain("LATE RULE")
        yield* session.refreshSystem
        expect(yield* session.system).toContain("LATE RULE")
      }).pipe(Effect.provide(scriptedSession([]))))

    it.effect("setSystem(text) replaces the base and clears the history", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* session.chat("hello")
        yield* session.setSystem("You are a pirate.")
        expect(yield* session.history).toEqual([])
        expect((yield* session.system).startsWith("You are a pirate.")).toBe(true)
        yield* session.chat("again")
        const last = (yield* requests).at(-1)
        expect(last?.messages).toHaveLength(2)
        expect((last?.messages[0] as SystemMessage).content.startsWith("You are a pirate.")).toBe(true)
      }).pipe(Effect.provide(scriptedSession(conversation))))

    it.effect("addTool after the start keeps the history and adds the addendum and catalogue line", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* session.chat("hello")
        yield* session.addTool(named("late", "always", "LATE ADDENDUM"))
        expect(yield* session.history).toHaveLength(2)
        const system = yield* session.system
        expect(system).toContain("LATE ADDENDUM")
        expect(system).toContain("- late — The late tool.")
        yield* session.chat("use it")
        const last = (yield* requests).at(-1)
        expect(last?.tools.map((t) => t.name)).toEqual([...builtins, "tool_lookup", "late"])
        expect(last?.messages).toHaveLength(4)
      }).pipe(Effect.provide(scriptedSession(conversation))))

    it.effect("addTool before the start (config) is registered after the built-ins, before tool_lookup", () =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry
        expect((yield* registry.specs).map((s) => s.name)).toEqual([...builtins, "echo", "tool_lookup"])
      }).pipe(Effect.provide(scriptedSession([], { tools: [echo] }))))

    it.effect("addTool rejects a duplicate with a typed error", () =>
      Effect.gen(function*() {
        const session = yield* Session
        const error = yield* Effect.flip(session.addTool(echo))
        expect(error._tag).toBe("ToolRegistrationError")
      }).pipe(Effect.provide(scriptedSession([], { tools: [echo] }))))

    it.effect("reset clears the history and keeps the system prompt", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* session.chat("hello")
        const before = yield* session.system
        yield* session.reset
        expect(yield* session.history).toEqual([])
        expect(yield* session.system).toBe(before)
        yield* session.chat("fresh")
        expect((yield* requests).at(-1)?.messages).toHaveLength(2)
      }).pipe(Effect.provide(scriptedSession(conversation))))
  })

  describe("chat", () => {
    it.effect("tells the time on every turn's user message, each keeping the time it was sent, so the prompt before the newest is unchanged", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* TestClock.setTime(Date.UTC(2026, 10, 23, 9, 0, 0))
        yield* session.chat("first")
        yield* TestClock.adjust("1 hour")
        yield* session.chat("second")
        const [turn1, turn2] = (yield* requests).map((request) => request.messages.map((message) => message.content))
        expect(turn1).toEqual([yield* session.system, "first\n\nSent: 2026-11-23 09:00 +0000 (UTC)"])
        expect(turn2).toEqual([
          yield* session.system,
          "first\n\nSent: 2026-11-23 09:00 +0000 (UTC)",
          "one",
          "second\n\nSent: 10:00"
        ])
        expect((yield* session.history).map((message) => message.content)).toEqual(["first", "one", "second", "two"])
      }).pipe(Effect.provide(scriptedSession([Scripted.reply("one"), Scripted.reply("two")]))))

    it.effect("keeps the conversation, system prompt first on the wire", () =>
      Effect.gen(function*() {
        const session = yield* Session
        const turn = yield* session.chat("roll")
        expect(turn).toMatchObject({ text: "rolled", stopReason: "Stop", hops: 1 })
        const history = yield* session.history
        expect(history.map((m) => m._tag)).toEqual(["UserMessage", "AssistantMessage", "ToolMessage", "AssistantMessage"])
        expect(history[2]).toEqual(new ToolMessage({ toolCallId: "call_1", name: "echo", content: "6" }))
        yield* session.chat("again")
        const second = (yield* requests).at(-1)?.messages ?? []
        expect(second[0]).toBeInstanceOf(SystemMessage)
        expect(second.slice(1)).toEqual([
          new UserMessage({ content: `roll\n\n${epochNote}` }),
          ...history.slice(1),
          // Asked in the same minute as "roll": its note still tells the time.
          new UserMessage({ content: "again" })
        ])
      }).pipe(Effect.provide(scriptedSession(
        [Scripted.toolCall("echo", { text: "6" }), Scripted.reply("rolled"), Scripted.reply("ok")],
        { tools: [echo] }
      ))))

    it.effect("uses the session preset, and a turn's own preset and overrides", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* session.chat("a")
        yield* session.chat("b", { preset: "creative", sampling: { temperature: 0.9 } })
        yield* session.chat("c", { sampling: { topK: 7 } })
        const sampling = (yield* requests).map((r) => ({ ...r.sampling }))
        expect(sampling).toEqual([
          { ...presets.balanced, temperature: 0.5 },
          { ...presets.creative, temperature: 0.9 },
          { ...presets.balanced, temperature: 0.5, topK: 7 }
        ])
      }).pipe(Effect.provide(scriptedSession(
        [Scripted.reply("1"), Scripted.reply("2"), Scripted.reply("3")],
        { preset: "balanced", sampling: { temperature: 0.5 } }
      ))))

    it.effect("runs one turn at a time", () =>
      Effect.gen(function*() {
        const session = yield* Session
        const [first, second] = yield* Effect.all([session.chat("one"), session.chat("two")], { concurrency: 2 })
        expect([first.text, second.text]).toEqual(["A", "B"])
        const history = yield* session.history
        expect(history).toEqual([
          new UserMessage({ content: "one" }),
          new AssistantMessage({ content: "A" }),
          new UserMessage({ content: "two" }),
          new AssistantMessage({ content: "B" })
        ])
      }).pipe(Effect.provide(scriptedSession([Scripted.reply("A"), Scripted.reply("B")]))))

    it.effect("forgets a turn that failed before any hop completed", () =>
      Effect.gen(function*() {
        const session = yield* Session
        const error = yield* Effect.flip(session.chat("hello"))
        expect(error).toEqual(new ModelError({ reason: "Transport", detail: "reset" }))
        expect(yield* session.history).toEqual([])
        expect((yield* session.chat("hello again")).text).toBe("hi")
        expect(yield* session.history).toEqual([
          new UserMessage({ content: "hello again" }),
          new AssistantMessage({ content: "hi" })
        ])
      }).pipe(Effect.provide(scriptedSession([
        [Scripted.fail(new ModelError({ reason: "Transport", detail: "reset" }))],
        Scripted.reply("hi")
      ]))))

    it.effect("forgets a turn interrupted before any hop completed", () =>
      Effect.gen(function*() {
        const session = yield* Session
        const streaming = yield* Deferred.make<void>()
        const fiber = yield* session.stream("slow").pipe(
          Stream.runForEach(() => Deferred.succeed(streaming, undefined)),
          Effect.fork
        )
        yield* Deferred.await(streaming)
        yield* Fiber.interrupt(fiber)
        expect(yield* session.history).toEqual([])
      }).pipe(Effect.provide(scriptedSession([[...Scripted.text("so"), Scripted.delay("1 hour")]]))))

    it.effect("keeps an interrupted turn, what was written marked as interrupted, when asked to", () =>
      Effect.gen(function*() {
        const session = yield* Session
        const streaming = yield* Deferred.make<void>()
        const fiber = yield* session.stream("slow", { keepInterrupted: true }).pipe(
          Stream.runForEach((event) => event._tag === "TextDelta" ? Deferred.succeed(streaming, undefined) : Effect.void),
          Effect.fork
        )
        yield* Deferred.await(streaming)
        yield* Fiber.interrupt(fiber)
        expect(yield* session.history).toEqual([
          new UserMessage({ content: "slow" }),
          new AssistantMessage({ content: `Once upon\n\n${interruptedMark}` })
        ])
        expect((yield* session.chat("go on")).text).toBe("a time")
        // The next turn's model reads the cut answer as it was left.
        const next = (yield* requests)[1]?.messages ?? []
        expect(next.map((m) => m._tag)).toEqual(["SystemMessage", "UserMessage", "AssistantMessage", "UserMessage"])
        expect(next[2]?.content).toBe(`Once upon\n\n${interruptedMark}`)
      }).pipe(Effect.provide(scriptedSession([
        [...Scripted.text("Once upon"), Scripted.delay("1 hour")],
        Scripted.reply("a time")
      ]))))

    it.effect("leaves a consistent history when a turn is interrupted, and goes on", () =>
      Effect.gen(function*() {
        const session = yield* Session
        const toolRan = yield* Deferred.make<void>()
        const fiber = yield* session.stream("work").pipe(
          Stream.runForEach((event) =>
            event._tag === "ToolCallFinished" ? Deferred.succeed(toolRan, undefined) : Effect.void
          ),
          Effect.fork
        )
        yield* Deferred.await(toolRan)
        yield* Fiber.interrupt(fiber)
        const history = yield* session.history
        expect(hasNoDanglingToolCalls(history)).toBe(true)
        expect(history.map((m) => m._tag)).toEqual(["UserMessage", "AssistantMessage", "ToolMessage"])
        const next = yield* session.chat("still there?")
        expect(next.text).toBe("yes")
        expect(hasNoDanglingToolCalls(yield* session.history)).toBe(true)
      }).pipe(Effect.provide(scriptedSession(
        [
          Scripted.toolCall("echo", { text: "x" }),
          [...Scripted.text("never"), Scripted.delay("1 hour"), ...Scripted.text(" finished")],
          Scripted.reply("yes")
        ],
        { tools: [echo] }
      ))))
  })

  describe("compress", () => {
    it.effect("replaces the history with the model's recap, asked for without tools", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* session.chat("my name is Ada")
        yield* session.chat("I like graphs")
        const compressed = yield* session.compress
        expect(compressed).toEqual({ recap: "Ada, likes graphs.", replaced: 4 })
        const recapCall = (yield* requests)[2]
        expect(recapCall?.toolChoice).toBe("none")
        expect(recapCall?.messages.map((m) => m.content)).toEqual([
          yield* session.system,
          "my name is Ada",
          "hello Ada",
          "I like graphs",
          "noted",
          SessionLive.recapRequest
        ])
        expect(yield* session.history).toEqual([
          new UserMessage({ content: SessionLive.recapRequest }),
          new AssistantMessage({ content: "Ada, likes graphs." })
        ])
        yield* session.chat("who am I?")
        expect((yield* requests)[3]?.messages.map((m) => m.content).slice(1)).toEqual([
          SessionLive.recapRequest,
          "Ada, likes graphs.",
          `who am I?\n\n${epochNote}`
        ])
      }).pipe(Effect.provide(scriptedSession([
        Scripted.reply("hello Ada"),
        Scripted.reply("noted"),
        Scripted.reply("  Ada, likes graphs.\n"),
        Scripted.reply("Ada")
      ]))))

    it.effect("asks nothing when there is no conversation", () =>
      Effect.gen(function*() {
        const session = yield* Session
        expect(yield* session.compress).toEqual({ recap: "", replaced: 0 })
        expect(yield* requests).toEqual([])
      }).pipe(Effect.provide(scriptedSession([]))))

    it.effect("keeps the history when the model writes no recap", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* session.chat("hi")
        const before = yield* session.history
        expect(yield* session.compress).toEqual({ recap: "", replaced: 0 })
        expect(yield* session.history).toEqual(before)
      }).pipe(Effect.provide(scriptedSession([Scripted.reply("hello"), Scripted.reply("   ")]))))

    it.effect("keeps the history when the recap fails", () =>
      Effect.gen(function*() {
        const session = yield* Session
        yield* session.chat("hi")
        const before = yield* session.history
        const failed = yield* Effect.flip(session.compress)
        expect(failed._tag).toBe("ModelError")
        expect(yield* session.history).toEqual(before)
      }).pipe(Effect.provide(scriptedSession([Scripted.reply("hello"), [Scripted.fail(new ModelError({ reason: "BadResponse", detail: "down" }))]]))))
  })
})

/** A dynamic append that counts how often it was rendered. */
const counter = () => {
  let renders = 0
  return () => `counter=${++renders}`
}
