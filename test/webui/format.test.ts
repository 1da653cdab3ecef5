/**
 * The web UI's texts: the status pill, the context bar, the speed line,
 * titles and durations; and the preset names.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  contextFill,
  duration,
  groupDigits,
  lastTimedReply,
  replySpeed,
  replyTokens,
  speedText,
  statusText,
  titleFrom
} from "../../webui/src/format.js"
import { defaultPreset, isPresetName } from "../../webui/src/presets.js"
import { emptyReply } from "../../webui/src/stream.js"
import type { AssistantMessage, Conversation, Timings, ToolRow } from "../../webui/src/types.js"

const timings = (fields: Partial<Timings>): Timings => ({
  promptN: null,
  predictedN: null,
  predictedPerSecond: null,
  nCtxUsed: null,
  nCtx: null,
  ...fields
})

const usage = (completionTokens: number) => ({ promptTokens: 10, completionTokens, totalTokens: 10 + completionTokens })

const reply = (fields: Partial<AssistantMessage> = {}): AssistantMessage => ({ ...emptyReply("r1", 0), ...fields })

const row = (name: string, state: ToolRow["state"]): ToolRow => ({
  id: name,
  name,
  arguments: "{}",
  state,
  result: null,
  truncated: false,
  durationMs: null
})

describe("statusText", () => {
  it("is thinking, with the prompt's percentage while it is read", () => {
    expect(statusText(reply())).toBe("thinking")
    expect(statusText(reply({ progress: { processed: 40, total: 100 } }))).toBe("thinking 40%")
    expect(statusText(reply({ progress: { processed: 1, total: 3 } }))).toBe("thinking 33%")
    expect(statusText(reply({ progress: { processed: 0, total: 812 } }))).toBe("thinking 0%")
    // A prompt read completely, or of size 0, is plain thinking.
    expect(statusText(reply({ progress: { processed: 100, total: 100 } }))).toBe("thinking")
    expect(statusText(reply({ progress: { processed: 0, total: 0 } }))).toBe("thinking")
  })

  it("is answering while the text streams", () => {
    expect(statusText(reply({ phase: "answering", content: "Hi" }))).toBe("answering")
  })

  it("names the tool running now (the latest one), whatever the phase", () => {
    expect(statusText(reply({ phase: "tool", tools: [row("web_search", "running")] }))).toBe("calling web_search")
    expect(statusText(reply({ phase: "tool", tools: [row("a", "running"), row("b", "running"), row("c", "done")] })))
      .toBe("calling b")
    expect(statusText(reply({ phase: "thinking", tools: [row("a", "done")] }))).toBe("thinking")
  })

  it("is done with the tokens, the seconds and the server's speed", () => {
    const done = reply({
      state: "done",
      usage: usage(98),
      timings: timings({ predictedN: 98, predictedPerSecond: 50 }),
      elapsedMs: 4900
    })
    // 98 tokens over 4.9 s would be 20.0 tok/s: the measured speed wins.
    expect(statusText(done)).toBe("done · 98 tok · 4.9 s · 50.0 tok/s")
  })

  it("is done with tokens over wall clock when the server measured no speed", () => {
    expect(statusText(reply({ state: "done", usage: usage(98), elapsedMs: 4900 }))).toBe("done · 98 tok · 4.9 s · 20.0 tok/s")
    expect(statusText(reply({ state: "done", timings: timings({ predictedN: 12345 }), elapsedMs: 1000 })))
      .toBe("done · 12 345 tok · 1.0 s · 12345.0 tok/s")
  })

  it("reads zero tokens as unknown, falling back from the usage to the timings", () => {
    expect(statusText(reply({ state: "done", usage: usage(0), elapsedMs: 1500 }))).toBe("done · 1.5 s")
    expect(statusText(reply({ state: "done", usage: usage(0), timings: timings({ predictedN: 7 }), elapsedMs: 1000 })))
      .toBe("done · 7 tok · 1.0 s · 7.0 tok/s")
    expect(statusText(reply({ state: "done" }))).toBe("done")
  })

  it("says when the answer was cut off by the length limit", () => {
    expect(statusText(reply({ state: "done", usage: usage(64), elapsedMs: 2000, finishReason: "length" })))
      .toBe("done · 64 tok · 2.0 s · 32.0 tok/s · cut off (length)")
  })

  it("is stopped, or error", () => {
    expect(statusText(reply({ state: "stopped", usage: usage(5), elapsedMs: 100 }))).toBe("stopped")
    expect(statusText(reply({ state: "error", error: "boom" }))).toBe("error")
  })
})

describe("replyTokens / replySpeed", () => {
  it("prefer the usage, then the timings, and the measured speed over tokens per second", () => {
    expect(replyTokens(reply({ usage: usage(10), timings: timings({ predictedN: 20 }) }))).toBe(10)
    expect(replyTokens(reply({ timings: timings({ predictedN: 20 }) }))).toBe(20)
    expect(replyTokens(reply())).toBeNull()
    expect(replySpeed(reply({ usage: usage(10), elapsedMs: 2000, timings: timings({ predictedPerSecond: 7.5 }) }))).toBe(7.5)
    expect(replySpeed(reply({ usage: usage(10), elapsedMs: 2000 }))).toBe(5)
    expect(replySpeed(reply({ usage: usage(10), elapsedMs: 0 }))).toBeNull()
    expect(replySpeed(reply({ usage: usage(10) }))).toBeNull()
  })
})

describe("contextFill", () => {
  it("shows the used and total context with the percentage", () => {
    const fill = contextFill(timings({ nCtxUsed: 1234, nCtx: 4096 }), null)
    expect(fill.text).toBe("ctx 1 234 / 4 096 (30%)")
    expect(fill.fraction).toBeCloseTo(1234 / 4096, 10)
  })

  it("takes the size from the server's props when the timings have none, preferring the timings'", () => {
    expect(contextFill(timings({ nCtxUsed: 2048 }), 8192)).toEqual({ text: "ctx 2 048 / 8 192 (25%)", fraction: 0.25 })
    expect(contextFill(timings({ nCtxUsed: 2048, nCtx: 4096 }), 8192)).toEqual({ text: "ctx 2 048 / 4 096 (50%)", fraction: 0.5 })
  })

  it("shows a dash before any answer", () => {
    expect(contextFill(null, 4096)).toEqual({ text: "ctx — / 4 096", fraction: null })
    expect(contextFill(null, null)).toEqual({ text: "ctx — / —", fraction: null })
    expect(contextFill(timings({ predictedN: 3 }), 4096)).toEqual({ text: "ctx — / 4 096", fraction: null })
  })

  it("shows only the used count without a context size (n_ctx)", () => {
    expect(contextFill(timings({ nCtxUsed: 1234 }), null)).toEqual({ text: "ctx 1 234", fraction: null })
    expect(contextFill(timings({ nCtxUsed: 1234, nCtx: 0 }), null)).toEqual({ text: "ctx 1 234", fraction: null })
  })

  it("never goes past 100%", () => {
    expect(contextFill(timings({ nCtxUsed: 5000, nCtx: 4096 }), null)).toEqual({ text: "ctx 5 000 / 4 096 (100%)", fraction: 1 })
  })
})

describe("speedText", () => {
  it("shows the last reply's tokens and speed", () => {
    expect(speedText(reply({ state: "done", usage: usage(98), timings: timings({ predictedPerSecond: 22.34 }), elapsedMs: 4400 })))
      .toBe("last 98 tok · 22.3 tok/s")
    expect(speedText(reply({ state: "done", usage: usage(1500), elapsedMs: 3000 }))).toBe("last 1 500 tok · 500.0 tok/s")
    expect(speedText(reply({ state: "done", timings: timings({ predictedPerSecond: 9 }) }))).toBe("last 9.0 tok/s")
  })

  it("is a dash without a reply or without measurements", () => {
    expect(speedText(null)).toBe("last —")
    expect(speedText(reply({ state: "done", usage: usage(0), elapsedMs: 1000 }))).toBe("last —")
  })
})

describe("lastTimedReply", () => {
  const conversation = (messages: Conversation["messages"]): Conversation => ({
    id: "c1",
    title: "t",
    createdAt: 0,
    updatedAt: 0,
    messages
  })

  it("is the last ended reply with timings or usage", () => {
    const timed = reply({ id: "a1", state: "done", usage: usage(5) })
    const untimed = reply({ id: "a2", state: "stopped" })
    const streaming = reply({ id: "a3", usage: usage(9) })
    const user = { id: "u1", role: "user" as const, content: "hi", createdAt: 0 }
    expect(lastTimedReply(conversation([user, timed, user, untimed, user, streaming]))).toBe(timed)
    expect(lastTimedReply(conversation([user, untimed]))).toBeNull()
    expect(lastTimedReply(null)).toBeNull()
  })
})

describe("titleFrom", () => {
  it("is the first message on one line", () => {
    expect(titleFrom("  What is\n\tthe  answer?  ")).toBe("What is the answer?")
  })

  it("is New chat for an empty message", () => {
    expect(titleFrom("")).toBe("New chat")
    expect(titleFrom(" \n ")).toBe("New chat")
  })

  it("cuts a long message to 48 characters, ending with an ellipsis", () => {
    const exact = "x".repeat(48)
    expect(titleFrom(exact)).toBe(exact)
    const long = titleFrom("a".repeat(60))
    expect(long).toBe(`${"a".repeat(47)}…`)
    expect(long).toHaveLength(48)
    // No space is left before the ellipsis.
    expect(titleFrom(`${"a".repeat(46)} bcdef`)).toBe(`${"a".repeat(46)}…`)
    expect(titleFrom("hello world", 8)).toBe("hello w…")
  })
})

describe("duration and groupDigits", () => {
  it("format durations", () => {
    expect(duration(3)).toBe("0.00 s")
    expect(duration(420)).toBe("0.42 s")
    expect(duration(3140)).toBe("3.1 s")
    expect(duration(65_000)).toBe("1 m 05 s")
    expect(duration(600_000)).toBe("10 m 00 s")
  })

  it("group digits by thousands with plain spaces", () => {
    expect(groupDigits(0)).toBe("0")
    expect(groupDigits(999)).toBe("999")
    expect(groupDigits(4096)).toBe("4 096")
    expect(groupDigits(1234567)).toBe("1 234 567")
    expect(groupDigits(1234.6)).toBe("1 235")
  })
})

describe("presets", () => {
  it("default to precise and know the five names", () => {
    expect(defaultPreset).toBe("precise")
    for (const name of ["deterministic", "precise", "balanced", "creative", "wild"]) expect(isPresetName(name)).toBe(true)
    for (const value of ["Precise", "", "fast", null, undefined, 3]) expect(isPresetName(value)).toBe(false)
  })
})
