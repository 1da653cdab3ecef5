/**
 * The web UI's stream logic, without a browser: `parseFrame` turns one SSE
 * frame into events, `fold` / `settle` turn the events into the assistant
 * message the page renders.
 */
import { describe, expect, it } from "@effect/vitest"
import { statusText } from "../../webui/src/format.js"
import { emptyReply, fold, parseFrame, settle, type StreamEvent } from "../../webui/src/stream.js"
import type { AssistantMessage } from "../../webui/src/types.js"

/** A plain `chat.completion.chunk`, as the server sends it. */
const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "easyai",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra
  })

/** The data of a named easyai event: a harmless chunk with `choices: []` and the event's own field. */
const named = (event: string, fields: Record<string, unknown>) =>
  JSON.stringify({ id: "chatcmpl-1", object: event, created: 1, model: "easyai", choices: [], ...fields })

const reply = (): AssistantMessage => emptyReply("r1", 1000)
const run = (events: ReadonlyArray<StreamEvent>, start: AssistantMessage = reply()): AssistantMessage =>
  events.reduce(fold, start)

/** Frames (event name, data) → the reply after folding all of their events. */
const stream = (frames: ReadonlyArray<readonly [string | undefined, string]>): AssistantMessage =>
  run(frames.flatMap(([event, data]) => parseFrame(event, data)))

/** Mirrors `components/Reasoning.tsx` (with `answering = content !== ""` from `Message.tsx`): open on its own while the reasoning streams. */
const reasoningOpensItself = (message: AssistantMessage): boolean => message.state === "streaming" && message.content === ""

const call = (id: string, name: string, args = "{}"): StreamEvent => ({ type: "tool_call", id, name, arguments: args })
const result = (id: string, name: string, content: string, isError = false, durationMs: number | null = 42): StreamEvent => ({
  type: "tool_result",
  id,
  name,
  content,
  truncated: false,
  isError,
  durationMs
})

describe("parseFrame", () => {
  it("reads a content delta", () => {
    expect(parseFrame(undefined, chunk({ content: "Hel" }))).toEqual([{ type: "content", text: "Hel" }])
    // The SSE default event name and an empty one mean a plain chunk too.
    expect(parseFrame("message", chunk({ content: "lo" }))).toEqual([{ type: "content", text: "lo" }])
    expect(parseFrame("", chunk({ content: "!" }))).toEqual([{ type: "content", text: "!" }])
  })

  it("reads nothing from the opening role chunk or a null content", () => {
    expect(parseFrame(undefined, chunk({ role: "assistant", content: "" }))).toEqual([])
    expect(parseFrame(undefined, chunk({ content: null }))).toEqual([])
    expect(parseFrame(undefined, chunk({}))).toEqual([])
  })

  it("reads a reasoning delta (reasoning_content, or reasoning), before the content of the same delta", () => {
    expect(parseFrame(undefined, chunk({ reasoning_content: "Let me think" }))).toEqual([
      { type: "reasoning", text: "Let me think" }
    ])
    expect(parseFrame(undefined, chunk({ reasoning: "hmm" }))).toEqual([{ type: "reasoning", text: "hmm" }])
    expect(parseFrame(undefined, chunk({ reasoning_content: "so", content: "42" }))).toEqual([
      { type: "reasoning", text: "so" },
      { type: "content", text: "42" }
    ])
  })

  it("reads the finish chunk with its timings", () => {
    const data = chunk({}, "stop", {
      timings: { cache_n: 4, prompt_n: 12, predicted_n: 98, predicted_per_second: 22.34, n_ctx_used: 1234, n_ctx: 4096 }
    })
    expect(parseFrame(undefined, data)).toEqual([{
      type: "finish",
      reason: "stop",
      timings: { promptN: 12, predictedN: 98, predictedPerSecond: 22.34, nCtxUsed: 1234, nCtx: 4096 }
    }])
  })

  it("reads a finish chunk without timings, or with only some of them", () => {
    expect(parseFrame(undefined, chunk({}, "length"))).toEqual([{ type: "finish", reason: "length", timings: null }])
    expect(parseFrame(undefined, chunk({}, "stop", { timings: { predicted_n: 3, n_ctx: "big" } }))).toEqual([{
      type: "finish",
      reason: "stop",
      timings: { promptN: null, predictedN: 3, predictedPerSecond: null, nCtxUsed: null, nCtx: null }
    }])
  })

  it("reads the usage chunk (choices: [])", () => {
    const data = JSON.stringify({ object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 12, completion_tokens: 98, total_tokens: 110 } })
    expect(parseFrame(undefined, data)).toEqual([{ type: "usage", usage: { promptTokens: 12, completionTokens: 98, totalTokens: 110 } }])
  })

  it("fills in a missing total or prompt count, and skips a usage without completion tokens", () => {
    expect(parseFrame(undefined, JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 7 } }))).toEqual([
      { type: "usage", usage: { promptTokens: 5, completionTokens: 7, totalTokens: 12 } }
    ])
    expect(parseFrame(undefined, JSON.stringify({ choices: [], usage: { completion_tokens: 7 } }))).toEqual([
      { type: "usage", usage: { promptTokens: 0, completionTokens: 7, totalTokens: 7 } }
    ])
    expect(parseFrame(undefined, JSON.stringify({ choices: [], usage: { prompt_tokens: 5 } }))).toEqual([])
    expect(parseFrame(undefined, JSON.stringify({ choices: [], usage: null }))).toEqual([])
  })

  it("passes completion_tokens: 0 on as it is (the formatting reads zero as unknown)", () => {
    const events = parseFrame(undefined, JSON.stringify({ choices: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } }))
    expect(events).toEqual([{ type: "usage", usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } }])
    const done = settle(run([{ type: "content", text: "Hi" }, ...events]), "done", 1500)
    expect(statusText(done)).toBe("done · 1.5 s")
  })

  it("reads an error chunk", () => {
    const envelope = JSON.stringify({ error: { message: "the model crashed", type: "server_error", code: null, param: null } })
    expect(parseFrame(undefined, envelope)).toEqual([{ type: "error", message: "the model crashed" }])
    expect(parseFrame(undefined, JSON.stringify({ error: "overloaded" }))).toEqual([{ type: "error", message: "overloaded" }])
    expect(parseFrame(undefined, JSON.stringify({ error: { type: "server_error" } }))).toEqual([
      { type: "error", message: "the server reported an error" }
    ])
    // A null error field is no error.
    expect(parseFrame(undefined, chunk({ content: "ok" }, null, { error: null }))).toEqual([{ type: "content", text: "ok" }])
  })

  it("reads [DONE]", () => {
    expect(parseFrame(undefined, "[DONE]")).toEqual([{ type: "done" }])
    expect(parseFrame(undefined, " [DONE]\n")).toEqual([{ type: "done" }])
  })

  it("reads easyai.tool_call", () => {
    const data = named("easyai.tool_call", { tool_call: { id: "call_1", name: "echo", arguments: "{\"text\":\"ping\"}" } })
    expect(parseFrame("easyai.tool_call", data)).toEqual([
      { type: "tool_call", id: "call_1", name: "echo", arguments: "{\"text\":\"ping\"}" }
    ])
    // Arguments sent as an object are shown as JSON; missing fields get defaults.
    expect(parseFrame("easyai.tool_call", named("easyai.tool_call", { tool_call: { arguments: { text: "ping" } } }))).toEqual([
      { type: "tool_call", id: "", name: "tool", arguments: "{\"text\":\"ping\"}" }
    ])
    expect(parseFrame("easyai.tool_call", named("easyai.tool_call", {}))).toEqual([])
  })

  it("reads easyai.tool_result, with is_error, truncated and the duration", () => {
    const failed = named("easyai.tool_result", {
      tool_result: { id: "call_1", name: "fetch", content: "HTTP 404", truncated: true, is_error: true, duration_ms: 1250 }
    })
    expect(parseFrame("easyai.tool_result", failed)).toEqual([
      { type: "tool_result", id: "call_1", name: "fetch", content: "HTTP 404", truncated: true, isError: true, durationMs: 1250 }
    ])
    const ok = named("easyai.tool_result", { tool_result: { id: "call_2", name: "echo", content: "ping", is_error: false } })
    expect(parseFrame("easyai.tool_result", ok)).toEqual([
      { type: "tool_result", id: "call_2", name: "echo", content: "ping", truncated: false, isError: false, durationMs: null }
    ])
  })

  it("reads easyai.prompt_progress, and nothing when a count is missing", () => {
    expect(parseFrame("easyai.prompt_progress", named("easyai.prompt_progress", { prompt_progress: { processed: 40, total: 100 } })))
      .toEqual([{ type: "progress", processed: 40, total: 100 }])
    expect(parseFrame("easyai.prompt_progress", named("easyai.prompt_progress", { prompt_progress: { processed: 40 } }))).toEqual([])
  })

  it("reads easyai.hop_reset", () => {
    expect(parseFrame("easyai.hop_reset", named("easyai.hop_reset", { hop_reset: { reason: "tool call in the text", attempt: 1 } })))
      .toEqual([{ type: "hop_reset" }])
  })

  it("ignores an event name it does not know, whatever its data", () => {
    expect(parseFrame("easyai.something_new", named("easyai.something_new", { something: 1 }))).toEqual([])
    expect(parseFrame("easyai.something_new", chunk({ content: "not for this client" }))).toEqual([])
  })

  it("never throws on data that is not a JSON object", () => {
    for (const data of ["{not json", "", "   ", "null", "42", "\"text\"", "[1,2]", "{\"choices\":", "{\"choices\":[null]}"]) {
      expect(parseFrame(undefined, data)).toEqual([])
      expect(parseFrame("easyai.tool_call", data)).toEqual([])
    }
    expect(parseFrame(undefined, JSON.stringify({ choices: "nope", usage: [] }))).toEqual([])
  })
})

describe("fold", () => {
  it("starts thinking", () => {
    const start = reply()
    expect(start).toMatchObject({ state: "streaming", phase: "thinking", content: "", reasoning: "", tools: [], elapsedMs: null })
    expect(statusText(start)).toBe("thinking")
  })

  it("accumulates streamed text and is answering", () => {
    const after = stream([[undefined, chunk({ role: "assistant", content: "" })], [undefined, chunk({ content: "Hel" })], [
      undefined,
      chunk({ content: "lo, world." })
    ]])
    expect(after.content).toBe("Hello, world.")
    expect(after.phase).toBe("answering")
    expect(after.state).toBe("streaming")
    expect(statusText(after)).toBe("answering")
  })

  it("shows the prompt progress until the first token, and forgets it then", () => {
    const reading = run([{ type: "progress", processed: 40, total: 100 }])
    expect(reading.progress).toEqual({ processed: 40, total: 100 })
    expect(statusText(reading)).toBe("thinking 40%")
    const answering = fold(reading, { type: "content", text: "A" })
    expect(answering.progress).toBeNull()
    expect(statusText(answering)).toBe("answering")
  })

  it("keeps the reasoning apart from the answer; the reasoning panel opens by itself only until the answer starts", () => {
    const thinking = run([{ type: "reasoning", text: "Let me " }, { type: "reasoning", text: "weigh this." }])
    expect(thinking).toMatchObject({ reasoning: "Let me weigh this.", content: "", phase: "thinking" })
    expect(statusText(thinking)).toBe("thinking")
    expect(reasoningOpensItself(thinking)).toBe(true)

    const answering = run([{ type: "content", text: "Forty-two." }], thinking)
    expect(answering).toMatchObject({ reasoning: "Let me weigh this.", content: "Forty-two.", phase: "answering" })
    expect(statusText(answering)).toBe("answering")
    expect(reasoningOpensItself(answering)).toBe(false)

    const done = settle(answering, "done", 2000)
    expect(done.reasoning).toBe("Let me weigh this.")
    expect(reasoningOpensItself(done)).toBe(false)
  })

  it("shows a tool row running, then done with its result and duration", () => {
    const calling = run([{ type: "content", text: "Let me check. " }, call("call_1", "echo", "{\"text\":\"ping\"}")])
    expect(calling.phase).toBe("tool")
    expect(calling.tools).toEqual([
      { id: "call_1", name: "echo", arguments: "{\"text\":\"ping\"}", state: "running", result: null, truncated: false, durationMs: null }
    ])
    expect(statusText(calling)).toBe("calling echo")

    const finished = fold(calling, result("call_1", "echo", "ping", false, 42))
    expect(finished.tools).toEqual([
      { id: "call_1", name: "echo", arguments: "{\"text\":\"ping\"}", state: "done", result: "ping", truncated: false, durationMs: 42 }
    ])
    expect(finished.phase).toBe("thinking")
    expect(finished.mark).toEqual({ content: "Let me check. ".length, reasoning: 0 })
    expect(statusText(finished)).toBe("thinking")
  })

  it("marks a failed tool as error", () => {
    const after = run([call("call_1", "fetch"), result("call_1", "fetch", "HTTP 404", true, 1250)])
    expect(after.tools[0]).toMatchObject({ state: "error", result: "HTTP 404", durationMs: 1250 })
  })

  it("matches results to calls by id, and by name when the id is empty", () => {
    const both = run([call("a", "search"), call("b", "fetch")])
    expect(statusText(both)).toBe("calling fetch")
    const bFirst = fold(both, result("b", "fetch", "page"))
    expect(bFirst.tools.map((row) => row.state)).toEqual(["running", "done"])
    expect(bFirst.phase).toBe("tool")
    expect(statusText(bFirst)).toBe("calling search")
    const all = fold(bFirst, result("a", "search", "hits"))
    expect(all.tools.map((row) => [row.id, row.state, row.result])).toEqual([["a", "done", "hits"], ["b", "done", "page"]])
    expect(all.phase).toBe("thinking")

    const unnamed = run([call("", "echo"), call("", "echo"), result("", "echo", "second")])
    expect(unnamed.tools.map((row) => [row.state, row.result])).toEqual([["running", null], ["done", "second"]])
  })

  it("adds a finished row for a result whose call it never saw", () => {
    const after = run([result("call_9", "echo", "ping")])
    expect(after.tools).toEqual([
      { id: "call_9", name: "echo", arguments: "", state: "done", result: "ping", truncated: false, durationMs: 42 }
    ])
  })

  it("on hop_reset drops the text and reasoning since the last tool result, keeping the finished tool rows", () => {
    const beforeReset = run([
      { type: "reasoning", text: "I need a tool." },
      { type: "content", text: "Checking. " },
      call("call_1", "echo"),
      result("call_1", "echo", "ping"),
      { type: "reasoning", text: " Now answer." },
      { type: "content", text: "<tool_call>broken" }
    ])
    const reset = fold(beforeReset, { type: "hop_reset" })
    expect(reset.content).toBe("Checking. ")
    expect(reset.reasoning).toBe("I need a tool.")
    expect(reset.tools).toEqual(beforeReset.tools)
    expect(reset.tools[0]?.state).toBe("done")
    expect(reset.phase).toBe("thinking")
    expect(statusText(reset)).toBe("thinking")
    // The hop is produced again after the reset.
    expect(fold(reset, { type: "content", text: "The echo said ping." }).content).toBe("Checking. The echo said ping.")
  })

  it("on hop_reset before any tool result drops everything streamed so far", () => {
    const reset = run([{ type: "reasoning", text: "r" }, { type: "content", text: "draft" }, { type: "hop_reset" }])
    expect(reset).toMatchObject({ content: "", reasoning: "", phase: "thinking", tools: [] })
  })

  it("keeps the last timings when a later finish has none, and records the usage", () => {
    const timings = { promptN: 1, predictedN: 2, predictedPerSecond: 3, nCtxUsed: 4, nCtx: 5 }
    const after = run([
      { type: "finish", reason: "tool_calls", timings },
      { type: "finish", reason: "stop", timings: null },
      { type: "usage", usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } }
    ])
    expect(after.finishReason).toBe("stop")
    expect(after.timings).toEqual(timings)
    expect(after.usage).toEqual({ promptTokens: 1, completionTokens: 2, totalTokens: 3 })
    expect(after.state).toBe("streaming") // the finish chunk does not end the reply; settle does
  })

  it("leaves the reply as it is on done (settle ends it)", () => {
    const before = run([{ type: "content", text: "x" }])
    expect(fold(before, { type: "done" })).toBe(before)
  })

  it("on an error chunk fails the reply, keeping its text, and ignores what follows", () => {
    const failed = run([
      { type: "content", text: "Partial" },
      call("call_1", "echo"),
      { type: "error", message: "the model crashed" },
      { type: "content", text: " more" }
    ])
    expect(failed).toMatchObject({ state: "error", error: "the model crashed", content: "Partial" })
    expect(failed.tools[0]?.state).toBe("error")
    expect(statusText(failed)).toBe("error")
  })
})

describe("settle", () => {
  it("ends a reply as done with the wall clock", () => {
    const done = settle(run([{ type: "content", text: "Hi" }]), "done", 4400)
    expect(done).toMatchObject({ state: "done", content: "Hi", elapsedMs: 4400, error: null, progress: null })
  })

  it("ends a stopped reply keeping the text, and fails the tools still running", () => {
    const stopped = settle(run([{ type: "content", text: "Once upon a time" }, call("call_1", "echo")]), "stopped", 1234)
    expect(stopped).toMatchObject({ state: "stopped", content: "Once upon a time", elapsedMs: 1234, error: null })
    expect(stopped.tools[0]?.state).toBe("error")
    expect(statusText(stopped)).toBe("stopped")
  })

  it("stops a reply still reading its prompt, forgetting the progress", () => {
    const stopped = settle(run([{ type: "progress", processed: 10, total: 100 }]), "stopped", 50)
    expect(stopped.progress).toBeNull()
    expect(statusText(stopped)).toBe("stopped")
  })

  it("fails a reply with the given message, or a default one", () => {
    const busy = settle(reply(), "error", 10, "The server is busy, try again.")
    expect(busy).toMatchObject({ state: "error", error: "The server is busy, try again.", elapsedMs: 10 })
    expect(settle(reply(), "error", 10).error).toBe("the request failed")
    expect(statusText(busy)).toBe("error")
  })

  it("keeps the error of a reply that failed mid-stream, adding only the wall clock", () => {
    const failed = run([{ type: "content", text: "Par" }, { type: "error", message: "boom" }])
    const settled = settle(failed, "done", 900)
    expect(settled).toMatchObject({ state: "error", error: "boom", content: "Par", elapsedMs: 900 })
    expect(settle(settled, "done", 5000).elapsedMs).toBe(900)
  })

  it("does nothing to a reply that already ended", () => {
    const done = settle(reply(), "done", 100)
    expect(settle(done, "stopped", 200)).toBe(done)
    expect(fold(done, { type: "content", text: "late" })).toBe(done)
  })
})

describe("a whole stream, as the server sends it", () => {
  it("ends with the pill of a finished reply", () => {
    const after = stream([
      [undefined, chunk({ role: "assistant", content: "" })],
      ["easyai.prompt_progress", named("easyai.prompt_progress", { prompt_progress: { processed: 30, total: 60 } })],
      [undefined, chunk({ reasoning_content: "Echo it." })],
      ["easyai.tool_call", named("easyai.tool_call", { tool_call: { id: "c1", name: "echo", arguments: "{\"text\":\"ping\"}" } })],
      ["easyai.tool_result", named("easyai.tool_result", {
        tool_result: { id: "c1", name: "echo", content: "ping", truncated: false, is_error: false, duration_ms: 3 }
      })],
      [undefined, chunk({ content: "The echo said " })],
      [undefined, chunk({ content: "ping." })],
      [undefined, chunk({}, "stop", { timings: { prompt_n: 60, predicted_n: 98, predicted_per_second: 22.34, n_ctx_used: 1234, n_ctx: 4096 } })],
      [undefined, JSON.stringify({ choices: [], usage: { prompt_tokens: 60, completion_tokens: 98, total_tokens: 158 } })],
      [undefined, "[DONE]"]
    ])
    const done = settle(after, "done", 4400)
    expect(done).toMatchObject({ content: "The echo said ping.", reasoning: "Echo it.", finishReason: "stop", state: "done" })
    expect(done.tools.map((row) => [row.name, row.state, row.durationMs])).toEqual([["echo", "done", 3]])
    expect(statusText(done)).toBe("done · 98 tok · 4.4 s · 22.3 tok/s")
  })
})
