/**
 * Chat messages: the conversation a model reads and extends.
 *
 * The shapes follow the OpenAI chat-completions roles so they map one to one
 * onto the wire and onto local chat templates.
 *
 * @module
 */
import { Schema } from "effect"
import { ToolCall } from "./ToolCall.js"

/** The system prompt: the instructions the model reads first. */
export class SystemMessage extends Schema.TaggedClass<SystemMessage>()("SystemMessage", {
  content: Schema.String
}) {}

/** A message written by the person (or the program) driving the agent. */
export class UserMessage extends Schema.TaggedClass<UserMessage>()("UserMessage", {
  content: Schema.String
}) {}

/**
 * A model turn: visible text, optional reasoning (the `<think>` channel) and
 * the tool calls it asked for, in the order it asked for them.
 */
export class AssistantMessage extends Schema.TaggedClass<AssistantMessage>()("AssistantMessage", {
  content: Schema.String,
  reasoning: Schema.optional(Schema.String),
  toolCalls: Schema.optionalWith(Schema.Array(ToolCall), { default: () => [] })
}) {}

/** The result of one tool call, linked to it by `toolCallId`. */
export class ToolMessage extends Schema.TaggedClass<ToolMessage>()("ToolMessage", {
  toolCallId: Schema.String,
  name: Schema.String,
  content: Schema.String,
  isError: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {}

/** Any message of a conversation. */
export const ChatMessage = Schema.Union(SystemMessage, UserMessage, AssistantMessage, ToolMessage)
/** Any message of a conversation. */
export type ChatMessage = typeof ChatMessage.Type

/**
 * True when every assistant tool call in `messages` is answered by a tool
 * message before the next assistant or user message: the invariant a
 * conversation must keep to be sent to any chat template again.
 */
export const hasNoDanglingToolCalls = (messages: ReadonlyArray<ChatMessage>): boolean => {
  let pending = new Set<string>()
  for (const message of messages) {
    switch (message._tag) {
      case "AssistantMessage":
        if (pending.size > 0) return false
        pending = new Set(message.toolCalls.map((call) => call.id))
        break
      case "ToolMessage":
        pending.delete(message.toolCallId)
        break
      case "UserMessage":
      case "SystemMessage":
        if (pending.size > 0) return false
        break
    }
  }
  return pending.size === 0
}
