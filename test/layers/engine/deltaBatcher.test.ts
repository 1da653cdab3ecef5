import { describe, expect, it } from "@effect/vitest"
import { type ModelEvent, Usage } from "easyai"
import { DeltaBatcher } from "../../../src/layers/engine/deltaBatcher.js"

const setup = () => {
  const events: Array<ModelEvent> = []
  let now = 0
  const batcher = new DeltaBatcher((event) => events.push(event), 10, () => now)
  return { batcher, events, advance: (ms: number) => (now += ms) }
}

describe("DeltaBatcher", () => {
  it("emits the first delta at once, then joins deltas inside the window", () => {
    const { advance, batcher, events } = setup()
    batcher.delta("Text", "Once")
    advance(1)
    batcher.delta("Text", " upon")
    advance(1)
    batcher.delta("Text", " a")
    expect(events).toEqual([{ _tag: "TextDelta", text: "Once" }])
    advance(10)
    batcher.delta("Text", " time")
    expect(events.map((e) => e._tag === "TextDelta" && e.text)).toEqual(["Once", " upon a time"])
  })

  it("keeps reasoning and text apart, in order", () => {
    const { advance, batcher, events } = setup()
    batcher.delta("Reasoning", "hmm")
    advance(1)
    batcher.delta("Reasoning", " ok")
    batcher.delta("Text", "4")
    batcher.flush()
    expect(events).toMatchObject([
      { _tag: "ReasoningDelta", text: "hmm" },
      { _tag: "ReasoningDelta", text: " ok" },
      { _tag: "TextDelta", text: "4" }
    ])
  })

  it("flushes held text before any other event", () => {
    const { advance, batcher, events } = setup()
    batcher.delta("Text", "a")
    advance(1)
    batcher.delta("Text", "b")
    batcher.event(new Usage({ promptTokens: 1, completionTokens: 2 }))
    expect(events.map((e) => e._tag)).toEqual(["TextDelta", "TextDelta", "Usage"])
    expect(events[1]).toMatchObject({ text: "b" })
  })

  it("ignores empty deltas", () => {
    const { batcher, events } = setup()
    batcher.delta("Text", "")
    batcher.flush()
    expect(events).toEqual([])
  })
})
