/** Pure operations on the stored document (no I/O). */
import { titleFrom } from "./format.js"
import type { AssistantMessage, Conversation, Message, Store, WireMessage } from "./types.js"

/** A random id; `crypto.randomUUID` needs a secure context, `getRandomValues` does not. */
export const newId = (): string => {
  const bytes = new Uint8Array(12)
  crypto.getRandomValues(bytes)
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")
}

/** Newest activity first. */
export const sortedConversations = (store: Store): ReadonlyArray<Conversation> =>
  [...store.conversations].sort((a, b) => b.updatedAt - a.updatedAt)

export const activeConversation = (store: Store): Conversation | null =>
  store.conversations.find((item) => item.id === store.activeId) ?? null

/** Appends messages to a conversation (created when `conversationId` is unknown). */
export const appendMessages = (
  store: Store,
  conversationId: string,
  messages: ReadonlyArray<Message>,
  now: number
): Store => {
  const existing = store.conversations.find((item) => item.id === conversationId)
  if (existing === undefined) {
    const first = messages.find((message) => message.role === "user")
    const created: Conversation = {
      id: conversationId,
      title: titleFrom(first?.content ?? ""),
      createdAt: now,
      updatedAt: now,
      messages
    }
    return { conversations: [...store.conversations, created], activeId: conversationId }
  }
  return {
    activeId: conversationId,
    conversations: store.conversations.map((item) =>
      item.id === conversationId ? { ...item, updatedAt: now, messages: [...item.messages, ...messages] } : item
    )
  }
}

/** Applies `update` to one assistant message. */
export const updateReply = (
  store: Store,
  conversationId: string,
  messageId: string,
  update: (reply: AssistantMessage) => AssistantMessage
): Store => {
  let changed = false
  const conversations = store.conversations.map((item) => {
    if (item.id !== conversationId) return item
    const messages = item.messages.map((message) => {
      if (message.id !== messageId || message.role !== "assistant") return message
      const next = update(message)
      if (next !== message) changed = true
      return next
    })
    return changed ? { ...item, messages } : item
  })
  return changed ? { ...store, conversations } : store
}

export const removeConversation = (store: Store, conversationId: string): Store => ({
  conversations: store.conversations.filter((item) => item.id !== conversationId),
  activeId: store.activeId === conversationId ? null : store.activeId
})

export const selectConversation = (store: Store, conversationId: string | null): Store =>
  store.activeId === conversationId ? store : { ...store, activeId: conversationId }

/**
 * The request's `messages`: the history before `replyId` (user turns, and
 * assistant turns that produced text), as typed.
 */
export const wireMessages = (messages: ReadonlyArray<Message>, replyId: string): Array<WireMessage> => {
  const end = messages.findIndex((message) => message.id === replyId)
  const history = end === -1 ? messages : messages.slice(0, end)
  const wire: Array<WireMessage> = []
  for (const message of history) {
    if (message.role === "user") wire.push({ role: "user", content: message.content })
    else if (message.content.trim() !== "") wire.push({ role: "assistant", content: message.content })
  }
  return wire
}
