import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { datetime } from "../../../src/layers/tools/datetime.js"

/** 2026-04-25T10:20:49.750Z, a Saturday. */
const instant = Date.UTC(2026, 3, 25, 10, 20, 49, 750)

const call = (args: unknown) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(instant)
    return yield* datetime.invoke(JSON.stringify(args))
  })

describe("datetime", () => {
  it.effect("reads the time from the Clock and reports UTC and a named zone", () =>
    Effect.gen(function*() {
      const result = yield* call({ timezone: "America/Sao_Paulo" })
      expect(result.isError).toBe(false)
      expect(result.content).toBe([
        "UTC:       2026-04-25T10:20:49Z (Saturday)",
        "Local:     2026-04-25T07:20:49-03:00 (Saturday)",
        "Time zone: America/Sao_Paulo, UTC-03:00 (GMT-3)",
        "Unix time: 1777112449"
      ].join("\n"))
    }))

  it.effect("follows daylight saving time and the date line", () =>
    Effect.gen(function*() {
      const newYork = yield* call({ timezone: "America/New_York" })
      expect(newYork.content).toContain("Local:     2026-04-25T06:20:49-04:00 (Saturday)")
      expect(newYork.content).toContain("Time zone: America/New_York, UTC-04:00 (EDT)")
      const kiritimati = yield* call({ timezone: "Pacific/Kiritimati" })
      expect(kiritimati.content).toContain("Local:     2026-04-26T00:20:49+14:00 (Sunday)")
      const kolkata = yield* call({ timezone: "Asia/Kolkata" })
      expect(kolkata.content).toContain("Local:     2026-04-25T15:50:49+05:30 (Saturday)")
    }))

  it.effect("moves with the clock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(instant)
      yield* TestClock.adjust("1 day")
      const result = yield* datetime.invoke(JSON.stringify({ timezone: "UTC" }))
      expect(result.content.split("\n")[0]).toBe("UTC:       2026-04-26T10:20:49Z (Sunday)")
    }))

  it.effect("uses the machine's zone without a timezone, and forgives case and spaces", () =>
    Effect.gen(function*() {
      const local = Intl.DateTimeFormat().resolvedOptions().timeZone
      const plain = yield* call({})
      expect(plain.isError).toBe(false)
      expect(plain.content).toContain(`Time zone: ${local}, UTC`)
      const lenient = yield* call({ timezone: "america/new york" })
      expect(lenient.content).toContain(`Time zone: America/New_York (asked for "america/new york"), UTC-04:00`)
    }))

  it.effect("teaches the model when the zone is unknown", () =>
    Effect.gen(function*() {
      const result = yield* call({ timezone: "Europe/Berln" })
      expect(result.isError).toBe(true)
      expect(result.content).toContain(`datetime: unknown time zone "Europe/Berln". Did you mean "Europe/Berlin"`)
      expect(result.content).toContain(`Example: {"timezone": "Europe/Berlin"}`)
      const nonsense = yield* call({ timezone: "Mars/Olympus_Mons" })
      expect(nonsense.isError).toBe(true)
      expect(nonsense.content).toContain("Use an IANA time zone name")
    }))

  it.effect("rejects arguments it does not know", () =>
    Effect.gen(function*() {
      const result = yield* call({ zone: "UTC" })
      expect(result.isError).toBe(true)
      expect(result.content).toContain("zone: is not a parameter of this tool")
    }))

  it("describes itself for the model", () => {
    expect(datetime.spec.name).toBe("datetime")
    expect(datetime.surface).toBe("always")
    expect(datetime.spec.description).toContain("Optional. An IANA time zone name")
    expect(datetime.spec.parameters).toMatchObject({ type: "object", properties: { timezone: { type: "string" } } })
  })
})
