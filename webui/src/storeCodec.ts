/**
 * Pure: the stored conversations as text and back. What is read is
 * validated field by field: corrupted or foreign data reads as nothing,
 * never as a crash.
 */
import { isRecord, type JsonRecord, num, parseJson, str } from "./json.js"
import type { AssistantMessage, Conversation, Message, ReplyState, Store, Timings, ToolRow, Usage } from "./types.js"

const version = 1

export const emptyStore: Store = { conversations: [], activeId: null }



const arrayOf = <T>(value: unknown, item: (value: unknown) => T | null): Array<T> => {
  if (!Array.isArray(value)) return []
  const out: Array<T> = []
  for (const element of value) {
    const parsed = item(element)
    if (parsed !== null) out.push(parsed)
  }
  return out
}

const tool = (value: unknown): ToolRow | null => {
  if (!isRecord(value)) return null
  const name = str(value["name"])
  if (name === null) return null
  const state = value["state"] === "error" ? "error" : value["state"] === "done" ? "done" : "error" // a stored "running" row can never finish
  return {
    id: str(value["id"]) ?? "",
    name,
    arguments: str(value["arguments"]) ?? "",
    state,
    result: str(value["result"]),
    truncated: value["truncated"] === true,
    durationMs: num(value["durationMs"])
  }
}

const timings = (value: unknown): Timings | null =>
  isRecord(value)
    ? {
      promptN: num(value["promptN"]),
      predictedN: num(value["predictedN"]),
      predictedPerSecond: num(value["predictedPerSecond"]),
      nCtxUsed: num(value["nCtxUsed"]),
      nCtx: num(value["nCtx"])
    }
    : null

const usage = (value: unknown): Usage | null => {
  if (!isRecord(value)) return null
  const completionTokens = num(value["completionTokens"])
  if (completionTokens === null) return null
  const promptTokens = num(value["promptTokens"]) ?? 0
  return { promptTokens, completionTokens, totalTokens: num(value["totalTokens"]) ?? promptTokens + completionTokens }
}

const replyState = (value: unknown): ReplyState => {
  switch (value) {
    case "done":
    case "error":
    case "stopped":
      return value
    default:
      return "stopped" // "streaming" was saved mid-answer: the request died with the page
  }
}

const assistant = (value: JsonRecord, id: string, createdAt: number): AssistantMessage => {
  const state = replyState(value["state"])
  return {
    id,
    role: "assistant",
    content: str(value["content"]) ?? "",
    reasoning: str(value["reasoning"]) ?? "",
    tools: arrayOf(value["tools"], tool),
    state,
    phase: "answering",
    progress: null,
    mark: { content: 0, reasoning: 0 },
    finishReason: str(value["finishReason"]),
    timings: timings(value["timings"]),
    usage: usage(value["usage"]),
    error: state === "error" ? str(value["error"]) ?? "the request failed" : null,
    createdAt,
    elapsedMs: num(value["elapsedMs"])
  }
}

const message = (value: unknown): Message | null => {
  if (!isRecord(value)) return null
  const id = str(value["id"])
  const createdAt = num(value["createdAt"]) ?? 0
  if (id === null) return null
  if (value["role"] === "user") {
    const content = str(value["content"])
    return content === null ? null : { id, role: "user", content, createdAt }
  }
  return value["role"] === "assistant" ? assistant(value, id, createdAt) : null
}

const conversation = (value: unknown): Conversation | null => {
  if (!isRecord(value)) return null
  const id = str(value["id"])
  if (id === null) return null
  const createdAt = num(value["createdAt"]) ?? 0
  return {
    id,
    title: str(value["title"]) ?? "New chat",
    createdAt,
    updatedAt: num(value["updatedAt"]) ?? createdAt,
    messages: arrayOf(value["messages"], message)
  }
}

/** Reads the stored document; anything unreadable reads as empty. */
export const parseStore = (text: string | null): Store => {
  if (text === null) return emptyStore
  const json = parseJson(text)
  if (!isRecord(json) || json["version"] !== version) return emptyStore
  const conversations = arrayOf(json["conversations"], conversation)
  const activeId = str(json["activeId"])
  return {
    conversations,
    activeId: activeId !== null && conversations.some((item) => item.id === activeId) ? activeId : null
  }
}

/** The transient fields of a reply are not worth storing. */
const storedMessage = (value: Message): unknown => {
  if (value.role === "user") return value
  const { phase: _phase, progress: _progress, mark: _mark, ...rest } = value
  return rest
}

export const serializeStore = (store: Store): string =>
  JSON.stringify({
    version,
    activeId: store.activeId,
    conversations: store.conversations.map((item) => ({ ...item, messages: item.messages.map(storedMessage) }))
  })
