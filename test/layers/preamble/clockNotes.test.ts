import { describe, expect, it } from "vitest"
import { AssistantMessage, type ChatMessage, SystemMessage, ToolCall, ToolMessage, UserMessage } from "easyai"
import type { ClockReading } from "../../../src/domain/SystemPrompt.js"
import { makeClockNotes } from "../../../src/layers/preamble/clockNotes.js"

const system = new SystemMessage({ content: "S" })
const user = (content: string) => new UserMessage({ content })
const assistant = (content: string) => new AssistantMessage({ content })
const contents = (messages: ReadonlyArray<ChatMessage>) => messages.map((message) => message.content)

/** The minute `time` of `day`: told in full as "time@day", by the time of day alone as "time". */
const at = (time: string, day = "d1"): ClockReading => ({ full: `${time}@${day}`, timeOfDay: time, day })

describe("clock notes", () => {
  it("keeps the note each user message was sent with on every later turn, the day told once", () => {
    const notes = makeClockNotes()
    const turn1 = [system, user("a")]
    expect(contents(notes.stamp(turn1, at("t1")))).toEqual(["S", "a\n\nt1@d1"])
    const turn2 = [...turn1, assistant("A"), user("b")]
    expect(contents(notes.stamp(turn2, at("t2")))).toEqual(["S", "a\n\nt1@d1", "A", "b\n\nt2"])
    const turn3 = [...turn2, assistant("B"), user("c")]
    expect(contents(notes.stamp(turn3, at("t3")))).toEqual(["S", "a\n\nt1@d1", "A", "b\n\nt2", "B", "c\n\nt3"])
  })

  it("tells the day again when it changes", () => {
    const notes = makeClockNotes()
    const turn1 = [system, user("a")]
    notes.stamp(turn1, at("t1"))
    const turn2 = [...turn1, assistant("A"), user("b")]
    expect(contents(notes.stamp(turn2, at("t1", "d2")))).toEqual(["S", "a\n\nt1@d1", "A", "b\n\nt1@d2"])
    const turn3 = [...turn2, assistant("B"), user("c")]
    expect(contents(notes.stamp(turn3, at("t2", "d2")))).toEqual(["S", "a\n\nt1@d1", "A", "b\n\nt1@d2", "B", "c\n\nt2"])
  })

  it("gives a turn asked again a fresh note, and keeps it while the turn's tool calls go on", () => {
    const notes = makeClockNotes()
    const asked = [system, user("a")]
    notes.stamp(asked, at("t1"))
    expect(contents(notes.stamp(asked, at("t2")))).toEqual(["S", "a\n\nt2@d1"])
    const call = new ToolCall({ id: "c", name: "datetime", arguments: "{}" })
    const continued = [...asked, new AssistantMessage({ content: "", toolCalls: [call] }), new ToolMessage({ toolCallId: "c", name: "datetime", content: "x" })]
    expect(contents(notes.stamp(continued, at("t3")))).toEqual(["S", "a\n\nt2@d1", "", "x"])
  })

  it("tells conversations apart by everything before the message", () => {
    const notes = makeClockNotes()
    notes.stamp([new SystemMessage({ content: "one" }), user("hi")], at("t1"))
    notes.stamp([new SystemMessage({ content: "two" }), user("hi")], at("t2"))
    const later = notes.stamp([new SystemMessage({ content: "one" }), user("hi"), assistant("A"), user("more")], at("t3"))
    expect(contents(later)).toEqual(["one", "hi\n\nt1@d1", "A", "more\n\nt3"])
  })

  it("leaves a message whose note was forgotten unstamped, the same on every turn, and tells the next note in full", () => {
    const notes = makeClockNotes(2)
    notes.stamp([system, user("a")], at("t1"))
    notes.stamp([system, user("x")], at("t2"))
    notes.stamp([system, user("y")], at("t3"))
    const next = [system, user("a"), assistant("A"), user("b")]
    expect(contents(notes.stamp(next, at("t4")))).toEqual(["S", "a", "A", "b\n\nt4@d1"])
    expect(contents(notes.stamp([...next, assistant("B"), user("c")], at("t5")))).toEqual(["S", "a", "A", "b\n\nt4@d1", "B", "c\n\nt5"])
  })

  it("tells a time of day in full from the turn its day's note is forgotten", () => {
    const notes = makeClockNotes(2)
    const turn2 = [system, user("a"), assistant("A"), user("b")]
    notes.stamp([system, user("a")], at("t1"))
    expect(contents(notes.stamp(turn2, at("t2")))).toEqual(["S", "a\n\nt1@d1", "A", "b\n\nt2"])
    // Two other conversations push the first message's note out; the second's stays (it was read last).
    notes.stamp(turn2, at("t2"))
    notes.stamp([system, user("x")], at("t3"))
    const turn3 = [...turn2, assistant("B"), user("c")]
    expect(contents(notes.stamp(turn3, at("t4")))).toEqual(["S", "a", "A", "b\n\nt2@d1", "B", "c\n\nt4"])
    expect(contents(notes.stamp(turn3, at("t4")))).toEqual(["S", "a", "A", "b\n\nt2@d1", "B", "c\n\nt4"])
  })

  it("gives no note to a message asked while the clock says what the last note said, and remembers that", () => {
    const notes = makeClockNotes()
    notes.stamp([system, user("a")], at("t1"))
    const quick = [system, user("a"), assistant("A"), user("b")]
    expect(contents(notes.stamp(quick, at("t1")))).toEqual(["S", "a\n\nt1@d1", "A", "b"])
    const later = [...quick, assistant("B"), user("c")]
    expect(contents(notes.stamp(later, at("t2")))).toEqual(["S", "a\n\nt1@d1", "A", "b", "B", "c\n\nt2"])
  })
})
