/** The data the web UI keeps: conversations, messages and the live state of a reply. */

export type ToolState = "running" | "done" | "error"

/** One server-side tool call shown inside an assistant message. */
export interface ToolRow {
  readonly id: string
  readonly name: string
  readonly arguments: string
  readonly state: ToolState
  readonly result: string | null
  readonly truncated: boolean
  readonly durationMs: number | null
}

/** llama.cpp-style `timings` of the final chunk, as far as the UI reads them. */
export interface Timings {
  readonly promptN: number | null
  readonly predictedN: number | null
  readonly predictedPerSecond: number | null
  readonly nCtxUsed: number | null
  readonly nCtx: number | null
}

/** OpenAI's `usage`. */
export interface Usage {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly totalTokens: number
}

/** What the reply is doing right now (drives the status pill while streaming). */
export type Phase = "thinking" | "answering" | "tool"

export type ReplyState = "streaming" | "done" | "stopped" | "error"

export interface UserMessage {
  readonly id: string
  readonly role: "user"
  readonly content: string
  readonly createdAt: number
}

export interface AssistantMessage {
  readonly id: string
  readonly role: "assistant"
  readonly content: string
  readonly reasoning: string
  readonly tools: ReadonlyArray<ToolRow>
  readonly state: ReplyState
  readonly phase: Phase
  /** Prompt evaluation progress of the current hop, when the server reported it. */
  readonly progress: { readonly processed: number; readonly total: number } | null
  /** Text and reasoning lengths at the last tool result: `hop_reset` truncates back to them. */
  readonly mark: { readonly content: number; readonly reasoning: number }
  readonly finishReason: string | null
  readonly timings: Timings | null
  readonly usage: Usage | null
  readonly error: string | null
  readonly createdAt: number
  /** Wall clock of the request, set when it ends. */
  readonly elapsedMs: number | null
}

export type Message = UserMessage | AssistantMessage

export interface Conversation {
  readonly id: string
  readonly title: string
  readonly createdAt: number
  readonly updatedAt: number
  readonly messages: ReadonlyArray<Message>
}

/** `GET /props`, read defensively. */
export interface ServerProps {
  readonly model: string | null
  readonly nCtx: number | null
  readonly preset: string | null
  readonly backend: string | null
  readonly tools: ReadonlyArray<string>
}

export const presetNames = ["deterministic", "precise", "balanced", "creative", "wild"] as const
export type PresetName = (typeof presetNames)[number]

/** The stored document: every conversation, and the one open. */
export interface Store {
  readonly conversations: ReadonlyArray<Conversation>
  readonly activeId: string | null
}

/** A message as the chat request carries it. */
export interface WireMessage {
  readonly role: "user" | "assistant"
  readonly content: string
}
