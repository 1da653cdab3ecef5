import { describe, expect, it } from "@effect/vitest"
import { classify, looksLikeAnnouncement } from "../../../src/layers/agent/retryPolicy.js"

describe("looksLikeAnnouncement", () => {
  it("recognizes announcements of an action", () => {
    for (
      const text of [
        "Let me search the web for that…",
        "I'll check the weather in Lisbon.",
        "I’ll look that up.",
        "Let me quickly check the docs:",
        "OK, let me read the file.",
        "I'm going to run the tests now.",
        "Sure, let me go ahead and fetch the page."
      ]
    ) {
      expect(looksLikeAnnouncement(text), text).toBe(true)
    }
  })

  it("leaves answers alone", () => {
    for (
      const text of [
        "Let me know if you need anything else!",
        "I'll be happy to help with that.",
        "The capital of France is Paris.",
        "",
        `Let me check ${"the details of this very long answer ".repeat(10)}`
      ]
    ) {
      expect(looksLikeAnnouncement(text), text).toBe(false)
    }
  })
})

describe("classify", () => {
  const turn = { text: "", reasoning: "", toolCalls: [], finishReason: "stop" as const }
  it("tells tool calls, thought-only, announce-only and answers apart", () => {
    expect(classify({ ...turn, text: "Let me check.", toolCalls: [{ id: "1", name: "x", arguments: "{}" }] }, true))
      .toBe("ToolCalls")
    expect(classify({ ...turn, reasoning: "hmm" }, true)).toBe("ThoughtOnly")
    expect(classify({ ...turn, text: "Let me check." }, true)).toBe("AnnounceOnly")
    expect(classify({ ...turn, text: "Let me check." }, false)).toBe("Answer")
    expect(classify({ ...turn, text: "4" }, true)).toBe("Answer")
  })
})
