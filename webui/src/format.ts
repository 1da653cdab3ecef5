/** Pure text for the status pill, the context bar and the speed line. */
import type { AssistantMessage, Conversation, Timings } from "./types.js"

/** `1234567` → `1 234 567` (plain spaces, the same in every locale). */
export const groupDigits = (value: number): string =>
  String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, " ")

const oneDecimal = (value: number): string => value.toFixed(1)

/**
 * Completion tokens of a finished reply: the usage, else the timings. Zero
 * reads as unknown: a server without measurements still sends a usage chunk
 * of zeros, and a reply with text never took zero tokens.
 */
export const replyTokens = (reply: AssistantMessage): number | null => {
  for (const count of [reply.usage?.completionTokens, reply.timings?.predictedN]) {
    if (count !== undefined && count !== null && count > 0) return count
  }
  return null
}

/** Generation speed: the server's measurement, else tokens over wall clock. */
export const replySpeed = (reply: AssistantMessage): number | null => {
  const measured = reply.timings?.predictedPerSecond ?? null
  if (measured !== null) return measured
  const tokens = replyTokens(reply)
  const seconds = reply.elapsedMs === null ? null : reply.elapsedMs / 1000
  return tokens !== null && tokens > 0 && seconds !== null && seconds > 0 ? tokens / seconds : null
}

/** The name of the tool running now, if any. */
const runningTool = (reply: AssistantMessage): string | null => {
  for (let i = reply.tools.length - 1; i >= 0; i--) {
    const row = reply.tools[i]
    if (row?.state === "running") return row.name
  }
  return null
}

/** The status pill: `thinking 40%` → `answering` → `calling web_search` → `done · 98 tok · 4.4 s · 22.3 tok/s`. */
export const statusText = (reply: AssistantMessage): string => {
  switch (reply.state) {
    case "streaming": {
      const tool = runningTool(reply)
      if (tool !== null) return `calling ${tool}`
      if (reply.phase === "answering") return "answering"
      const progress = reply.progress
      if (progress !== null && progress.total > 0 && progress.processed < progress.total) {
        return `thinking ${Math.floor((progress.processed / progress.total) * 100)}%`
      }
      return "thinking"
    }
    case "done": {
      const parts = ["done"]
      const tokens = replyTokens(reply)
      if (tokens !== null) parts.push(`${groupDigits(tokens)} tok`)
      if (reply.elapsedMs !== null) parts.push(`${oneDecimal(reply.elapsedMs / 1000)} s`)
      const speed = replySpeed(reply)
      if (speed !== null) parts.push(`${oneDecimal(speed)} tok/s`)
      if (reply.finishReason === "length") parts.push("cut off (length)")
      return parts.join(" · ")
    }
    case "stopped":
      return "stopped"
    case "error":
      return "error"
  }
}

/** The last finished reply of a conversation that carries timings. */
export const lastTimedReply = (conversation: Conversation | null): AssistantMessage | null => {
  if (conversation === null) return null
  for (let i = conversation.messages.length - 1; i >= 0; i--) {
    const message = conversation.messages[i]
    if (message?.role === "assistant" && message.state !== "streaming" && (message.timings !== null || message.usage !== null)) {
      return message
    }
  }
  return null
}

export interface ContextFill {
  readonly text: string
  /** 0…1, or null when unknown. */
  readonly fraction: number | null
}

/** `ctx 1 234 / 4 096 (30%)`; before any answer `ctx — / 4 096`. */
export const contextFill = (timings: Timings | null, serverContext: number | null): ContextFill => {
  const size = timings?.nCtx ?? serverContext
  const used = timings?.nCtxUsed ?? null
  const sizeText = size === null ? "—" : groupDigits(size)
  if (used === null) return { text: `ctx — / ${sizeText}`, fraction: null }
  if (size === null || size <= 0) return { text: `ctx ${groupDigits(used)}`, fraction: null }
  const fraction = Math.min(1, used / size)
  return { text: `ctx ${groupDigits(used)} / ${sizeText} (${Math.round(fraction * 100)}%)`, fraction }
}

/** `last 98 tok · 22.3 tok/s`. */
export const speedText = (reply: AssistantMessage | null): string => {
  if (reply === null) return "last —"
  const parts: Array<string> = []
  const tokens = replyTokens(reply)
  if (tokens !== null) parts.push(`${groupDigits(tokens)} tok`)
  const speed = replySpeed(reply)
  if (speed !== null) parts.push(`${oneDecimal(speed)} tok/s`)
  return parts.length === 0 ? "last —" : `last ${parts.join(" · ")}`
}

/** A conversation title from its first user message. */
export const titleFrom = (text: string, max = 48): string => {
  const line = text.replace(/\s+/g, " ").trim()
  if (line === "") return "New chat"
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`
}

/** `0.42 s`, `3.1 s`, `1 m 05 s`. */
export const duration = (ms: number): string => {
  if (ms < 1000) return `${(ms / 1000).toFixed(2)} s`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)} m ${String(seconds % 60).padStart(2, "0")} s`
}
