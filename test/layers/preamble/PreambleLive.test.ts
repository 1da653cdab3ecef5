import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { AssistantMessage, Preamble, PreambleLive, SystemMessage, UserMessage } from "easyai"
import { memoryWithVocabulary } from "../../support/memory.js"

const noon = Date.UTC(2026, 10, 21, 12, 0, 0)

describe("PreambleLive", () => {
  it.effect("stamps each user message with the time it was sent, the same on every later turn, never in the preamble", () =>
    Effect.gen(function*() {
      const preamble = yield* Preamble
      yield* TestClock.setTime(noon)
      const before = yield* preamble.build()
      const asked = [new SystemMessage({ content: before }), new UserMessage({ content: "hi" })]
      const first = yield* preamble.stamp(asked)
      yield* TestClock.adjust("90 seconds")
      const next = [...asked, new AssistantMessage({ content: "hello" }), new UserMessage({ content: "and now?" })]
      const second = yield* preamble.stamp(next)
      expect(first.at(-1)?.content).toBe("hi\n\nSent: 2026-11-21 12:00 +0000 (UTC)")
      expect(second.map((message) => message.content).slice(1)).toEqual([
        "hi\n\nSent: 2026-11-21 12:00 +0000 (UTC)",
        "hello",
        "and now?\n\nSent: 12:01"
      ])
      expect(yield* preamble.build()).toBe(before)
      expect(asked[1]?.content).toBe("hi")
    }).pipe(Effect.provide(PreambleLive.layer({ timeZone: "UTC" }))))

  it.effect("sends no second note within the minute of the conversation's last one", () =>
    Effect.gen(function*() {
      const preamble = yield* Preamble
      yield* TestClock.setTime(noon)
      const asked = [new SystemMessage({ content: "S" }), new UserMessage({ content: "hi" })]
      yield* preamble.stamp(asked)
      yield* TestClock.adjust("40 seconds")
      const quick = [...asked, new AssistantMessage({ content: "hello" }), new UserMessage({ content: "quick" })]
      expect((yield* preamble.stamp(quick)).map((message) => message.content).slice(1)).toEqual([
        "hi\n\nSent: 2026-11-21 12:00 +0000 (UTC)",
        "hello",
        "quick"
      ])
      yield* TestClock.adjust("30 seconds")
      const later = [...quick, new AssistantMessage({ content: "yes" }), new UserMessage({ content: "later" })]
      expect((yield* preamble.stamp(later)).map((message) => message.content).slice(1)).toEqual([
        "hi\n\nSent: 2026-11-21 12:00 +0000 (UTC)",
        "hello",
        "quick",
        "yes",
        "later\n\nSent: 12:01"
      ])
    }).pipe(Effect.provide(PreambleLive.layer({ timeZone: "UTC" }))))

  it.effect("tells the date again on the first message after midnight, as the zone it is set to counts days", () =>
    Effect.gen(function*() {
      // The same two instants, 23:59 and 00:01 UTC: on two days in UTC, on one in São Paulo (UTC-3).
      const lateThenEarly = (timeZone: string) =>
        Effect.gen(function*() {
          const preamble = yield* Preamble
          yield* TestClock.setTime(Date.UTC(2026, 10, 21, 23, 59, 0))
          const asked = [new SystemMessage({ content: "S" }), new UserMessage({ content: "late" })]
          yield* preamble.stamp(asked)
          yield* TestClock.adjust("2 minutes")
          const next = yield* preamble.stamp([...asked, new AssistantMessage({ content: "yes" }), new UserMessage({ content: "later" })])
          return next.map((message) => message.content).slice(1)
        }).pipe(Effect.provide(PreambleLive.layer({ timeZone })))
      expect(yield* lateThenEarly("UTC")).toEqual([
        "late\n\nSent: 2026-11-21 23:59 +0000 (UTC)",
        "yes",
        "later\n\nSent: 2026-11-22 00:01 +0000 (UTC)"
      ])
      expect(yield* lateThenEarly("America/Sao_Paulo")).toEqual([
        "late\n\nSent: 2026-11-21 20:59 -0300 (GMT-3)",
        "yes",
        "later\n\nSent: 21:01"
      ])
    }))

  it.effect("stamps nothing when date injection is off", () =>
    Effect.gen(function*() {
      const preamble = yield* Preamble
      const conversation = [new UserMessage({ content: "hi" })]
      expect(yield* preamble.stamp(conversation)).toBe(conversation)
      expect(yield* preamble.build()).not.toContain("DATE/TIME")
    }).pipe(Effect.provide(PreambleLive.layer({ injectDateTime: false }))))

  it.effect("has no memory blocks without a store", () =>
    Effect.gen(function*() {
      const preamble = yield* Preamble
      expect(preamble.defaults.knowledgeLoop).toBe(false)
      const text = yield* preamble.build()
      expect(text).not.toContain("MEMORY VOCABULARY")
      expect(text).not.toContain("KNOWLEDGE LOOP")
    }).pipe(Effect.provide(PreambleLive.layer())))

  it.effect("teaches the memory loop and lists the vocabulary last with a store", () =>
    Effect.gen(function*() {
      const preamble = yield* Preamble
      const text = yield* preamble.build({ citeSources: true })
      expect(text).toContain("# KNOWLEDGE LOOP")
      expect(text.indexOf("# MEMORY VOCABULARY")).toBeGreaterThan(text.indexOf("# CITE SOURCES"))
      expect(text.endsWith("rust(4) async(2)")).toBe(true)
    }).pipe(Effect.provide(
      PreambleLive.layerWithMemory().pipe(
        Layer.provide(memoryWithVocabulary(5, [{ keyword: "async", count: 2 }, { keyword: "rust", count: 4 }]))
      )
    )))
})
