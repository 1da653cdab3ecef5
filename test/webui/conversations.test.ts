/**
 * The web UI's stored document: the operations on it, the request's
 * `messages`, and reading back what was stored.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  activeConversation,
  appendMessages,
  newId,
  removeConversation,
  selectConversation,
  sortedConversations,
  updateReply,
  wireMessages
} from "../../webui/src/conversations.js"
import { emptyStore, parseStore, serializeStore } from "../../webui/src/storeCodec.js"
import { emptyReply, fold, settle } from "../../webui/src/stream.js"
import type { AssistantMessage, Message, UserMessage } from "../../webui/src/types.js"

const user = (id: string, content: string, createdAt = 0): UserMessage => ({ id, role: "user", content, createdAt })
const answer = (id: string, content: string, fields: Partial<AssistantMessage> = {}): AssistantMessage => ({
  ...emptyReply(id, 0),
  content,
  state: "done",
  phase: "answering",
  ...fields
})

describe("appendMessages", () => {
  it("creates the conversation, titled by its first user message, and makes it active", () => {
    const store = appendMessages(emptyStore, "c1", [user("u1", "What is\nthe answer?"), emptyReply("a1", 100)], 100)
    expect(store.activeId).toBe("c1")
    expect(store.conversations).toHaveLength(1)
    expect(store.conversations[0]).toMatchObject({ id: "c1", title: "What is the answer?", createdAt: 100, updatedAt: 100 })
    expect(store.conversations[0]?.messages.map((message) => message.id)).toEqual(["u1", "a1"])
  })

  it("cuts a long first message for the title", () => {
    const store = appendMessages(emptyStore, "c1", [user("u1", `${"word ".repeat(20)}end`)], 1)
    const title = store.conversations[0]?.title ?? ""
    expect(title).toHaveLength(48)
    expect(title).toBe(`${"word ".repeat(9)}wo…`)
  })

  it("titles a conversation without a user message New chat", () => {
    expect(appendMessages(emptyStore, "c1", [emptyReply("a1", 1)], 1).conversations[0]?.title).toBe("New chat")
  })

  it("appends to an existing conversation, keeping its title and bumping its time", () => {
    const first = appendMessages(emptyStore, "c1", [user("u1", "first"), answer("a1", "one")], 100)
    const other = appendMessages(first, "c2", [user("u9", "other")], 150)
    const second = appendMessages(other, "c1", [user("u2", "second"), emptyReply("a2", 200)], 200)
    expect(second.activeId).toBe("c1")
    const c1 = second.conversations.find((item) => item.id === "c1")
    expect(c1).toMatchObject({ title: "first", createdAt: 100, updatedAt: 200 })
    expect(c1?.messages.map((message) => message.id)).toEqual(["u1", "a1", "u2", "a2"])
    expect(second.conversations.find((item) => item.id === "c2")?.messages).toHaveLength(1)
    // The stores before are left as they were.
    expect(first.conversations[0]?.messages).toHaveLength(2)
  })
})

describe("sortedConversations", () => {
  it("lists the newest activity first without reordering the store", () => {
    let store = appendMessages(emptyStore, "old", [user("u1", "old")], 100)
    store = appendMessages(store, "new", [user("u2", "new")], 300)
    store = appendMessages(store, "mid", [user("u3", "mid")], 200)
    expect(sortedConversations(store).map((item) => item.id)).toEqual(["new", "mid", "old"])
    store = appendMessages(store, "old", [user("u4", "again")], 400)
    expect(sortedConversations(store).map((item) => item.id)).toEqual(["old", "new", "mid"])
    expect(store.conversations.map((item) => item.id)).toEqual(["old", "new", "mid"])
  })
})

describe("select and delete", () => {
  const two = appendMessages(appendMessages(emptyStore, "c1", [user("u1", "one")], 1), "c2", [user("u2", "two")], 2)

  it("selects a conversation, or none for a new chat", () => {
    expect(two.activeId).toBe("c2")
    expect(activeConversation(two)?.title).toBe("two")
    const first = selectConversation(two, "c1")
    expect(first.activeId).toBe("c1")
    expect(activeConversation(first)?.title).toBe("one")
    const none = selectConversation(two, null)
    expect(none.activeId).toBeNull()
    expect(activeConversation(none)).toBeNull()
    expect(none.conversations).toBe(two.conversations)
    // Selecting the active conversation changes nothing.
    expect(selectConversation(two, "c2")).toBe(two)
  })

  it("deletes a conversation, leaving no active one when it was active", () => {
    const removed = removeConversation(two, "c2")
    expect(removed.conversations.map((item) => item.id)).toEqual(["c1"])
    expect(removed.activeId).toBeNull()
    const other = removeConversation(two, "c1")
    expect(other.conversations.map((item) => item.id)).toEqual(["c2"])
    expect(other.activeId).toBe("c2")
    expect(removeConversation(two, "nope").conversations).toEqual(two.conversations)
  })
})

describe("updateReply", () => {
  const store = appendMessages(emptyStore, "c1", [user("u1", "hi"), emptyReply("a1", 1)], 1)

  it("applies the update to one assistant message", () => {
    const updated = updateReply(store, "c1", "a1", (reply) => fold(reply, { type: "content", text: "Hello" }))
    const message = updated.conversations[0]?.messages[1]
    expect(message?.role === "assistant" ? message.content : null).toBe("Hello")
    expect(updated.activeId).toBe("c1")
  })

  it("returns the same store when nothing changed", () => {
    const done = updateReply(store, "c1", "a1", (reply) => settle(reply, "done", 5))
    expect(updateReply(done, "c1", "a1", (reply) => fold(reply, { type: "content", text: "late" }))).toBe(done)
    expect(updateReply(store, "c1", "u1", () => answer("u1", "not a reply"))).toBe(store)
    expect(updateReply(store, "c2", "a1", (reply) => fold(reply, { type: "content", text: "x" }))).toBe(store)
  })
})

describe("wireMessages", () => {
  it("sends the history before the reply, dropping assistant turns without text, as typed", () => {
    const messages: ReadonlyArray<Message> = [
      user("u1", "  first line\nsecond line  "),
      answer("a1", "**Bold** answer\n"),
      user("u2", "again"),
      answer("a2", "", { state: "error", error: "boom" }),
      user("u3", "and again"),
      answer("a3", " \n ", { state: "stopped" }),
      user("u4", "now"),
      emptyReply("a4", 0),
      user("u5", "after the reply")
    ]
    expect(wireMessages(messages, "a4")).toEqual([
      { role: "user", content: "  first line\nsecond line  " },
      { role: "assistant", content: "**Bold** answer\n" },
      { role: "user", content: "again" },
      { role: "user", content: "and again" },
      { role: "user", content: "now" }
    ])
  })

  it("retrying an earlier reply sends only what came before it", () => {
    const messages = [user("u1", "one"), answer("a1", "uno"), user("u2", "two"), answer("a2", "dos")]
    expect(wireMessages(messages, "a1")).toEqual([{ role: "user", content: "one" }])
  })

  it("keeps the text of a stopped reply, and sends everything when the reply is unknown", () => {
    const messages = [user("u1", "tell a story"), answer("a1", "Once upon", { state: "stopped" }), user("u2", "go on")]
    expect(wireMessages(messages, "missing")).toEqual([
      { role: "user", content: "tell a story" },
      { role: "assistant", content: "Once upon" },
      { role: "user", content: "go on" }
    ])
  })
})

describe("newId", () => {
  it("is 24 hex digits, different every time", () => {
    const ids = Array.from({ length: 50 }, newId)
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/)
    expect(new Set(ids).size).toBe(50)
  })
})

describe("parseStore / serializeStore", () => {
  it("reads back what was stored, without the transient fields of a reply", () => {
    const reply = answer("a1", "Forty-two.", {
      reasoning: "Let me weigh this.",
      tools: [{ id: "c", name: "echo", arguments: "{}", state: "done", result: "ping", truncated: false, durationMs: 3 }],
      finishReason: "stop",
      timings: { promptN: 1, predictedN: 2, predictedPerSecond: 3, nCtxUsed: 4, nCtx: 5 },
      usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
      elapsedMs: 1234,
      createdAt: 7
    })
    const store = appendMessages(emptyStore, "c1", [user("u1", "question", 7), reply], 7)
    const text = serializeStore(store)
    const stored: unknown = JSON.parse(text)
    expect(stored).toMatchObject({ version: 1, activeId: "c1" })
    expect(text).not.toContain("\"phase\"")
    expect(text).not.toContain("\"mark\"")
    expect(parseStore(text)).toEqual(store)
  })

  it("reads a reply caught mid-stream as stopped, and its running tools as failed", () => {
    const streaming = fold(fold(emptyReply("a1", 1), { type: "content", text: "Once" }), {
      type: "tool_call",
      id: "c",
      name: "echo",
      arguments: "{}"
    })
    const store = appendMessages(emptyStore, "c1", [user("u1", "story"), streaming], 1)
    const read = parseStore(serializeStore(store)).conversations[0]?.messages[1]
    expect(read).toMatchObject({ role: "assistant", state: "stopped", content: "Once", error: null })
    expect(read?.role === "assistant" ? read.tools.map((row) => row.state) : null).toEqual(["error"])
  })

  it("reads anything unreadable as the empty store", () => {
    expect(parseStore(null)).toEqual(emptyStore)
    expect(parseStore("{not json")).toEqual(emptyStore)
    expect(parseStore("[]")).toEqual(emptyStore)
    expect(parseStore(JSON.stringify({ version: 2, conversations: [], activeId: null }))).toEqual(emptyStore)
  })

  it("drops what it cannot read, field by field", () => {
    const text = JSON.stringify({
      version: 1,
      activeId: "gone",
      conversations: [
        { title: "no id" },
        {
          id: "c1",
          createdAt: 5,
          messages: [
            { id: "u1", role: "user", content: "hi" },
            { id: "u2", role: "user" },
            { role: "user", content: "no id" },
            { id: "s1", role: "system", content: "?" },
            { id: "a1", role: "assistant", state: "error", content: 3 }
          ]
        }
      ]
    })
    const store = parseStore(text)
    expect(store.activeId).toBeNull()
    expect(store.conversations).toHaveLength(1)
    expect(store.conversations[0]).toMatchObject({ id: "c1", title: "New chat", createdAt: 5, updatedAt: 5 })
    expect(store.conversations[0]?.messages).toEqual([
      { id: "u1", role: "user", content: "hi", createdAt: 0 },
      { ...answer("a1", "", { state: "error", error: "the request failed" }) }
    ])
  })
})
