import { describe, expect, it } from "@effect/vitest"
import {
  maxHeldLength,
  ReasoningFilter,
  type ReasoningFilterOptions,
  stripReasoning
} from "../../src/domain/reasoningFilter.js"

/** Runs `chunks` through one filter; returns what each push gave and the end. */
const run = (chunks: ReadonlyArray<string>, options: ReasoningFilterOptions = {}) => {
  const filter = new ReasoningFilter(options)
  const pushed = chunks.map((chunk) => filter.push(chunk))
  const ended = filter.end()
  return { pushed, ended, text: pushed.join("") + ended }
}

const filtered = (chunks: ReadonlyArray<string>, options: ReasoningFilterOptions = {}) => run(chunks, options).text

describe("ReasoningFilter", () => {
  it("removes a block whose tags are split across chunks", () => {
    const { ended, pushed, text } = run(["Hello <th", "ink>secret</thi", "nk> world"])
    expect(pushed).toEqual(["Hello ", "", " world"])
    expect(ended).toBe("")
    expect(text).toBe("Hello  world")
  })

  it("gives the same output for every one- and two-cut split of the text", () => {
    const sample = "A <think>r1 < r2</think>\n\nB if a<b <Thinking>r3</THINKING> C <th"
    const expected = "A \n\nB if a<b  C <th"
    expect(sample.length).toBeGreaterThan(55)
    expect(stripReasoning(sample)).toBe(expected)
    for (let i = 0; i <= sample.length; i++) {
      expect(filtered([sample.slice(0, i), sample.slice(i)])).toBe(expected)
      for (let j = i; j <= sample.length; j++) {
        expect(filtered([sample.slice(0, i), sample.slice(i, j), sample.slice(j)])).toBe(expected)
      }
    }
  })

  it("gives the same output one character at a time", () => {
    const sample = "\n\n<think>plan\n</think>\n\nStep 1 <think>a<think>b</think>c</think>done</think>!"
    expect(filtered([...sample])).toBe(stripReasoning(sample))
    expect(stripReasoning(sample)).toBe("Step 1 done</think>!")
  })

  it("matches tags case-insensitively", () => {
    expect(stripReasoning("a<THINK>x</Think>b<tHiNk>y</THINK>c")).toBe("abc")
  })

  it("recognizes <thinking> and mixes spellings", () => {
    expect(stripReasoning("a<thinking>x</thinking>b")).toBe("ab")
    expect(stripReasoning("a<thinking>x</think>b")).toBe("ab")
    expect(stripReasoning("a<think>x</thinking>b")).toBe("ab")
  })

  it("handles nested and repeated blocks", () => {
    expect(stripReasoning("a<think>x<think>y</think>z</think>b")).toBe("ab")
    expect(stripReasoning("1<think>x</think>2<think>y</think>3<thinking>z</thinking>4")).toBe("1234")
  })

  it("drops the rest of an unterminated block at the end", () => {
    expect(run(["before <think>never", " closed"]).text).toBe("before ")
    expect(run(["before <think>never </thi"]).text).toBe("before ")
  })

  it("gives back a partial tag that never completed", () => {
    const { ended, pushed } = run(["a <th"])
    expect(pushed).toEqual(["a "])
    expect(ended).toBe("<th")
    expect(run(["a <", "/thin"]).text).toBe("a </thin")
  })

  it("keeps < characters that do not start a tag", () => {
    expect(filtered(["if a < b", " then <x> and <th", "e end>"])).toBe("if a < b then <x> and <the end>")
    expect(stripReasoning("<<think>x</think>>")).toBe("<>")
    expect(stripReasoning("a <think > b")).toBe("a <think > b")
  })

  it("holds back no more than a possible partial tag", () => {
    const text = "plain text with a < in it and no tags at all, long enough to matter"
    const filter = new ReasoningFilter()
    let shown = ""
    for (let i = 0; i < text.length; i++) {
      shown += filter.push(text.charAt(i))
      expect(i + 1 - shown.length).toBeLessThanOrEqual(maxHeldLength)
    }
    expect(shown + filter.end()).toBe(text)
    expect(maxHeldLength).toBe("</thinking>".length - 1)
  })

  describe("a closing tag with no open block", () => {
    it("is dropped while nothing visible has been emitted", () => {
      expect(stripReasoning("</think>\n\nAnswer")).toBe("Answer")
      expect(filtered(["  </th", "ink>Answer"])).toBe("  Answer")
      expect(stripReasoning("<think>a</think></think>b")).toBe("b")
    })

    it("is kept as literal text after visible text", () => {
      expect(stripReasoning("the tag </think> closes")).toBe("the tag </think> closes")
      expect(stripReasoning("<think>a</think>b</THINK>c")).toBe("b</THINK>c")
    })

    it("cannot take back text already shown: reasoning opened in the prompt needs startsInside", () => {
      expect(stripReasoning("thoughts</think>Answer")).toBe("thoughts</think>Answer")
      const options = { startsInside: true }
      expect(filtered(["thoughts\n</th", "ink>\n\nAnswer"], options)).toBe("Answer")
      expect(stripReasoning("thoughts, never closed", options)).toBe("")
      expect(stripReasoning("x</think>a<think>y</think>b", options)).toBe("ab")
    })
  })

  describe("blank lines", () => {
    it("are dropped at the start and after a block at the start of a line", () => {
      expect(stripReasoning("\n\n<think>x</think>\n\nAnswer")).toBe("Answer")
      expect(stripReasoning("<think>x</think>\r\n\r\nAnswer")).toBe("Answer")
      expect(stripReasoning("One.\n\n<think>x</think>\n\nTwo.")).toBe("One.\n\nTwo.")
      expect(stripReasoning("<think>x</think>\n  indented")).toBe("  indented")
    })

    it("are kept after a block in the middle of a line", () => {
      expect(stripReasoning("One.<think>x</think>\n\nTwo.")).toBe("One.\n\nTwo.")
      expect(stripReasoning("One.\n\nTwo.")).toBe("One.\n\nTwo.")
    })

    it("are all kept when collapsing is off", () => {
      const options = { collapseBlankLines: false }
      expect(stripReasoning("\n<think>x</think>\n\nAnswer", options)).toBe("\n\n\nAnswer")
    })
  })

  it("is ready for another stream after end", () => {
    const filter = new ReasoningFilter()
    expect(filter.push("a<think>x") + filter.end()).toBe("a")
    expect(filter.push("</think>b") + filter.end()).toBe("b")
    expect(filter.push("c</think>d") + filter.end()).toBe("c</think>d")
  })

  it("stays linear on large inputs", () => {
    const unit = "visible <think>hidden</think> "
    const text = unit.repeat(400)
    const chunks = [...text].slice(0, 10_000)
    expect(chunks.length).toBe(10_000)
    expect(filtered(chunks)).toBe(stripReasoning(chunks.join("")))
    const big = "x".repeat(1_000_000) + "<think>" + "y".repeat(1_000_000) + "</think>z"
    expect(stripReasoning(big).length).toBe(1_000_001)
  })
})
