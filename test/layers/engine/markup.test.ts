import { describe, expect, it } from "@effect/vitest"
import { MarkupScanner, type Piece } from "../../../src/layers/engine/markup.js"

/** Feeds `chunks` in order and returns every piece, merged. */
const scan = (...chunks: ReadonlyArray<string>): ReadonlyArray<Piece> => {
  const scanner = new MarkupScanner()
  const pieces = [...chunks.flatMap((chunk) => scanner.feed(chunk)), ...scanner.end()]
  const merged: Array<Piece> = []
  for (const piece of pieces) {
    const last = merged.at(-1)
    if (last && last._tag === piece._tag && piece._tag !== "Call" && last._tag !== "Call") {
      merged[merged.length - 1] = { _tag: piece._tag, text: last.text + piece.text }
    } else merged.push(piece)
  }
  return merged
}

/** Splits text into chunks of `size` characters (code points). */
const chunks = (text: string, size: number): ReadonlyArray<string> => {
  const chars = [...text]
  const out: Array<string> = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""))
  return out
}

describe("MarkupScanner", () => {
  it("passes plain text through, including lone angle brackets", () => {
    expect(scan("a < b and c > d, <b>bold</b>")).toEqual([{ _tag: "Text", text: "a < b and c > d, <b>bold</b>" }])
  })

  it("separates <think> reasoning, even when tags split across chunks", () => {
    const text = "<think>step one, then two</think>The answer is 4."
    const expected = [
      { _tag: "Reasoning", text: "step one, then two" },
      { _tag: "Text", text: "The answer is 4." }
    ]
    for (const size of [1, 2, 3, 5, 7, 100]) expect(scan(...chunks(text, size)), `size ${size}`).toEqual(expected)
  })

  it("recovers <tool_call> JSON", () => {
    const text = `Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "Lisbon"}}</tool_call>`
    for (const size of [1, 4, 100]) {
      expect(scan(...chunks(text, size))).toEqual([
        { _tag: "Text", text: "Checking." },
        { _tag: "Call", name: "get_weather", arguments: `{"city":"Lisbon"}` }
      ])
    }
  })

  it("recovers <function=…><parameter=…> markup", () => {
    const text = "<function=fs_read><parameter=path>/a.md</parameter><parameter=limit>10</parameter></function>"
    for (const size of [1, 3, 100]) {
      expect(scan(...chunks(text, size))).toEqual([
        { _tag: "Call", name: "fs_read", arguments: `{"path":"/a.md","limit":10}` }
      ])
    }
  })

  it("recovers the 🔧 name(args) form", () => {
    const text = `🔧 web_search({"query": "llama (cpp)"})\nDone.`
    for (const size of [1, 2, 100]) {
      expect(scan(...chunks(text, size))).toEqual([
        { _tag: "Call", name: "web_search", arguments: `{"query":"llama (cpp)"}` },
        { _tag: "Text", text: "\nDone." }
      ])
    }
    expect(scan("🔧 datetime()")).toEqual([{ _tag: "Call", name: "datetime", arguments: "{}" }])
  })

  it("gives malformed markup back as text", () => {
    expect(scan("<tool_call>not json</tool_call> ok")).toEqual([
      { _tag: "Text", text: "<tool_call>not json</tool_call> ok" }
    ])
    expect(scan("🔧 is a wrench")).toEqual([{ _tag: "Text", text: "🔧 is a wrench" }])
    expect(scan("<function=>x</function>")).toEqual([{ _tag: "Text", text: "<function=>x</function>" }])
  })

  it("flushes what is still open at the end", () => {
    expect(scan("<think>unfinished thought")).toEqual([{ _tag: "Reasoning", text: "unfinished thought" }])
    expect(scan(`<tool_call>{"name":"x","arguments":{}}`)).toEqual([{ _tag: "Call", name: "x", arguments: "{}" }])
    expect(scan("ends with <thi")).toEqual([{ _tag: "Text", text: "ends with <thi" }])
    expect(scan("<function=f><parameter=a>1")).toEqual([{ _tag: "Text", text: "<function=f><parameter=a>1" }])
  })

  it("handles several calls and text in between", () => {
    const text = `<tool_call>{"name":"a","arguments":{}}</tool_call> and <tool_call>{"name":"b","arguments":"{\\"x\\":1}"}</tool_call>`
    expect(scan(...chunks(text, 3))).toEqual([
      { _tag: "Call", name: "a", arguments: "{}" },
      { _tag: "Text", text: " and " },
      { _tag: "Call", name: "b", arguments: `{"x":1}` }
    ])
  })
})
