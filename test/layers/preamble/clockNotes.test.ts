import { describe, expect, it } from "vitest"
import { AssistantMessage, type ChatMessage, SystemMessage, ToolCall, ToolMessage, UserMessage } from "easyai"
import { makeClockNotes } from "../../../src/layers/preamble/clockNotes.js"

const system = new SystemMessage({ content: "S" })
const user = (content: string) => new UserMessage({ content })
const assistant = (content: string) => new AssistantMessage({ content })
const contents = (messages: ReadonlyArray<ChatMessage>) => messages.map((message) => message.content)

describe("clock notes", () => {
  it("keeps the note each user message was sent with on every later turn", () => {
    const notes = makeClockNotes()
    const turn1 = [system, user("a")]
    expect(contents(notes.stamp(turn1, "t1"))).toEqual(["S", "a\n\nt1"])
    const turn2 = [...turn1, assistant("A"), user("b")]
    expect(contents(notes.stamp(turn2, "t2"))).toEqual(["S", "a\n\nt1", "A", "b\n\nt2"])
    const turn3 = [...turn2, assistant("B"), user("c")]
    expect(contents(notes.stamp(turn3, "t3"))).toEqual(["S", "a\n\nt1", "A", "b\n\nt2", "B", "c\n\nt3"])
  })

  it("gives a turn asked again a fresh note, and keeps it while the turn's tool calls go on", () => {
    const notes = makeClockNotes()
    const asked = [system, user("a")]
    notes.stamp(asked, "t1")
    expect(contents(notes.stamp(asked, "t2"))).toEqual(["S", "a\n\nt2"])
    const call = new ToolCall({ id: "c", name: "datetime", arguments: "{}" })
    const continued = [...asked, new AssistantMessage({ content: "", toolCalls: [call] }), new ToolMessage({ toolCallId: "c", name: "datetime", content: "x" })]
    expect(contents(notes.stamp(continued, "t3"))).toEqual(["S", "a\n\nt2", "", "x"])
  })

  it("tells conversations apart by everything before the message", () => {
    const notes = makeClockNotes()
    notes.stamp([new SystemMessage({ content: "one" }), user("hi")], "t1")
    notes.stamp([new SystemMessage({ content: "two" }), user("hi")], "t2")
    const later = notes.stamp([new SystemMessage({ content: "one" }), user("hi"), assistant("A"), user("more")], "t3")
    expect(contents(later)).toEqual(["one", "hi\n\nt1", "A", "more\n\nt3"])
  })

  it("leaves a message whose note was forgotten unstamped, the same on every turn", () => {
    const notes = makeClockNotes(2)
    notes.stamp([system, user("a")], "t1")
    notes.stamp([system, user("x")], "t2")
    notes.stamp([system, user("y")], "t3")
    const next = [system, user("a"), assistant("A"), user("b")]
    expect(contents(notes.stamp(next, "t4"))).toEqual(["S", "a", "A", "b\n\nt4"])
    expect(contents(notes.stamp([...next, assistant("B"), user("c")], "t5"))).toEqual(["S", "a", "A", "b\n\nt4", "B", "c\n\nt5"])
  })

  it("gives no note to a message asked while the clock says what the last note said, and remembers that", () => {
    const notes = makeClockNotes()
    notes.stamp([system, user("a")], "t1")
    const quick = [system, user("a"), assistant("A"), user("b")]
    expect(contents(notes.stamp(quick, "t1"))).toEqual(["S", "a\n\nt1", "A", "b"])
    const later = [...quick, assistant("B"), user("c")]
    expect(contents(notes.stamp(later, "t2"))).toEqual(["S", "a\n\nt1", "A", "b", "B", "c\n\nt2"])
  })
})
