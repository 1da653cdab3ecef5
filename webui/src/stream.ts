/**
 * Pure: turns the server's SSE frames into events, and folds those events
 * into an assistant message. No DOM, no clock, no I/O — unit-testable.
 */
import { isRecord as isObject, num, parseJson, str } from "./json.js"
import type { AssistantMessage, ReplyState, Timings, ToolRow, Usage } from "./types.js"

export type StreamEvent =
  | { readonly type: "content"; readonly text: string }
  | { readonly type: "reasoning"; readonly text: string }
  | { readonly type: "finish"; readonly reason: string; readonly timings: Timings | null }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "error"; readonly message: string }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: string }
  | {
    readonly type: "tool_result"
    readonly id: string
    readonly name: string
    readonly content: string
    readonly truncated: boolean
    readonly isError: boolean
    readonly durationMs: number | null
  }
  | { readonly type: "progress"; readonly processed: number; readonly total: number }
  | { readonly type: "hop_reset" }
  | { readonly type: "done" }


const readTimings = (value: unknown): Timings | null =>
  isObject(value)
    ? {
      promptN: num(value["prompt_n"]),
      predictedN: num(value["predicted_n"]),
      predictedPerSecond: num(value["predicted_per_second"]),
      nCtxUsed: num(value["n_ctx_used"]),
      nCtx: num(value["n_ctx"])
    }
    : null

const argumentsText = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value === undefined || value === null) return ""
  return JSON.stringify(value)
}

/** The events of one SSE frame (`event` is the SSE event name, absent for plain chunks). */
export const parseFrame = (event: string | undefined, data: string): ReadonlyArray<StreamEvent> => {
  if (data.trim() === "[DONE]") return [{ type: "done" }]
  const json = parseJson(data)
  if (!isObject(json)) return []
  const error = json["error"]
  if (isObject(error) || typeof error === "string") {
    const message = isObject(error) ? str(error["message"]) : error
    return [{ type: "error", message: message ?? "the server reported an error" }]
  }
  switch (event) {
    case "easyai.tool_call": {
      const call = json["tool_call"]
      if (!isObject(call)) return []
      return [{
        type: "tool_call",
        id: str(call["id"]) ?? "",
        name: str(call["name"]) ?? "tool",
        arguments: argumentsText(call["arguments"])
      }]
    }
    case "easyai.tool_result": {
      const result = json["tool_result"]
      if (!isObject(result)) return []
      return [{
        type: "tool_result",
        id: str(result["id"]) ?? "",
        name: str(result["name"]) ?? "tool",
        content: str(result["content"]) ?? "",
        truncated: result["truncated"] === true,
        isError: result["is_error"] === true,
        durationMs: num(result["duration_ms"])
      }]
    }
    case "easyai.prompt_progress": {
      const progress = json["prompt_progress"]
      if (!isObject(progress)) return []
      const processed = num(progress["processed"])
      const total = num(progress["total"])
      return processed === null || total === null ? [] : [{ type: "progress", processed, total }]
    }
    case "easyai.hop_reset":
      return [{ type: "hop_reset" }]
    case undefined:
    case "":
    case "message":
      break
    default:
      return [] // an event this client does not know
  }
  const events: Array<StreamEvent> = []
  const choices = json["choices"]
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined
  if (isObject(choice)) {
    const delta = choice["delta"]
    if (isObject(delta)) {
      const reasoning = str(delta["reasoning_content"]) ?? str(delta["reasoning"])
      if (reasoning !== null && reasoning !== "") events.push({ type: "reasoning", text: reasoning })
      const content = str(delta["content"])
      if (content !== null && content !== "") events.push({ type: "content", text: content })
    }
    const reason = str(choice["finish_reason"])
    if (reason !== null) events.push({ type: "finish", reason, timings: readTimings(json["timings"]) })
  }
  const usage = json["usage"]
  if (isObject(usage)) {
    const completion = num(usage["completion_tokens"])
    const prompt = num(usage["prompt_tokens"])
    if (completion !== null) {
      events.push({
        type: "usage",
        usage: {
          promptTokens: prompt ?? 0,
          completionTokens: completion,
          totalTokens: num(usage["total_tokens"]) ?? (prompt ?? 0) + completion
        }
      })
    }
  }
  return events
}

/** A fresh assistant message waiting for its first event. */
export const emptyReply = (id: string, createdAt: number): AssistantMessage => ({
  id,
  role: "assistant",
  content: "",
  reasoning: "",
  tools: [],
  state: "streaming",
  phase: "thinking",
  progress: null,
  mark: { content: 0, reasoning: 0 },
  finishReason: null,
  timings: null,
  usage: null,
  error: null,
  createdAt,
  elapsedMs: null
})

const replaceTool = (tools: ReadonlyArray<ToolRow>, id: string, name: string, update: (row: ToolRow) => ToolRow) => {
  // The last running row with this id (or, without an id, this name) finishes.
  for (let i = tools.length - 1; i >= 0; i--) {
    const row = tools[i]
    if (row !== undefined && row.state === "running" && (id !== "" ? row.id === id : row.name === name)) {
      return [...tools.slice(0, i), update(row), ...tools.slice(i + 1)]
    }
  }
  return null
}

/** Folds one event into the reply. Events after the reply ended are ignored. */
export const fold = (reply: AssistantMessage, event: StreamEvent): AssistantMessage => {
  if (reply.state !== "streaming") return reply
  switch (event.type) {
    case "content":
      return { ...reply, content: reply.content + event.text, phase: "answering", progress: null }
    case "reasoning":
      return { ...reply, reasoning: reply.reasoning + event.text, phase: "thinking", progress: null }
    case "progress":
      return { ...reply, progress: { processed: event.processed, total: event.total } }
    case "tool_call":
      return {
        ...reply,
        phase: "tool",
        progress: null,
        tools: [...reply.tools, {
          id: event.id,
          name: event.name,
          arguments: event.arguments,
          state: "running",
          result: null,
          truncated: false,
          durationMs: null
        }]
      }
    case "tool_result": {
      const finished = (row: ToolRow): ToolRow => ({
        ...row,
        state: event.isError ? "error" : "done",
        result: event.content,
        truncated: event.truncated,
        durationMs: event.durationMs
      })
      const tools = replaceTool(reply.tools, event.id, event.name, finished) ??
        [...reply.tools, finished({ id: event.id, name: event.name, arguments: "", state: "running", result: null, truncated: false, durationMs: null })]
      const running = tools.some((row) => row.state === "running")
      return {
        ...reply,
        tools,
        phase: running ? "tool" : "thinking",
        progress: null,
        mark: { content: reply.content.length, reasoning: reply.reasoning.length }
      }
    }
    case "hop_reset":
      return {
        ...reply,
        content: reply.content.slice(0, reply.mark.content),
        reasoning: reply.reasoning.slice(0, reply.mark.reasoning),
        phase: "thinking",
        progress: null
      }
    case "finish":
      return { ...reply, finishReason: event.reason, timings: event.timings ?? reply.timings }
    case "usage":
      return { ...reply, usage: event.usage }
    case "error":
      return { ...reply, state: "error", error: event.message, tools: settleTools(reply.tools) }
    case "done":
      return reply // the caller ends the reply with `settle`, which knows the clock
  }
}

const settleTools = (tools: ReadonlyArray<ToolRow>): ReadonlyArray<ToolRow> =>
  tools.some((row) => row.state === "running")
    ? tools.map((row) => (row.state === "running" ? { ...row, state: "error" as const } : row))
    : tools

/**
 * Ends the reply: `done` / `stopped`, or `error` with a message. A reply that
 * already failed (an error chunk) keeps its error. Tool rows still running
 * cannot finish any more and are shown as failed.
 */
export const settle = (
  reply: AssistantMessage,
  outcome: Exclude<ReplyState, "streaming">,
  elapsedMs: number,
  error: string | null = null
): AssistantMessage => {
  if (reply.state === "error") return { ...reply, elapsedMs: reply.elapsedMs ?? elapsedMs }
  if (reply.state !== "streaming") return reply
  return {
    ...reply,
    state: outcome,
    error: outcome === "error" ? error ?? "the request failed" : null,
    progress: null,
    tools: settleTools(reply.tools),
    elapsedMs
  }
}
