/**
 * The clock notes of a server's (or a session's) conversations: the time
 * each user message was sent, remembered so that every later request of
 * that conversation renders the message with the same note and the prompt
 * stays byte-identical up to its newest turn.
 *
 * A message sent in the same minute as the conversation's last note gets
 * none: the last note still tells the time, and a quick exchange does not
 * pay a note's tokens on every turn.
 *
 * Clients send their history without notes (they never see them), so the
 * notes are keyed by what identifies a user message in its conversation:
 * a digest of every message up to and including it. The memory is bounded;
 * a forgotten note (an evicted or a restarted conversation) leaves that
 * message unstamped, which stays stable from then on.
 *
 * @module
 */
import { Array as Arr, Option } from "effect"
import { createHash, type Hash } from "node:crypto"
import type { ChatMessage } from "../../domain/Message.js"
import { withClockNotes } from "../../domain/SystemPrompt.js"

/** How many user messages' notes are remembered: a few hundred long conversations. */
export const clockNotesCapacity = 4096

/** Remembers the clock note of each user message it stamps. */
export interface ClockNotes {
  /**
   * The conversation with its notes. The newest user message gets `fresh`
   * when it is the last message (a new turn, or a turn asked again) unless
   * an earlier message already says `fresh`, and keeps what it got while
   * the turn goes on (followed by tool calls and results); every earlier
   * user message gets the note it was sent with, or none.
   */
  readonly stamp: (messages: ReadonlyArray<ChatMessage>, fresh: string) => ReadonlyArray<ChatMessage>
}

/** A message's contribution to the digest; the separator keeps boundaries unambiguous. */
const feed = (digest: Hash, message: ChatMessage): void => {
  digest.update(JSON.stringify(message))
  digest.update("\u0000")
}

/** What is remembered of a message sent without a note. */
const noNote = ""

/** A bounded memory of clock notes, least recently used first out. */
export const makeClockNotes = (capacity: number = clockNotesCapacity): ClockNotes => {
  const notes = new Map<string, string>()
  const recall = (key: string): string | undefined => {
    const note = notes.get(key)
    if (note !== undefined) {
      // Map order is the eviction order: a note read again moves to the back.
      notes.delete(key)
      notes.set(key, note)
    }
    return note
  }
  const remember = (key: string, note: string): string => {
    notes.delete(key)
    notes.set(key, note)
    for (const oldest of notes.keys()) {
      if (notes.size <= capacity) break
      notes.delete(oldest)
    }
    return note
  }
  return {
    stamp: (messages, fresh) => {
      const newest = Option.getOrElse(Arr.findLastIndex(messages, (message) => message._tag === "UserMessage"), () => -1)
      const digest = createHash("sha256")
      const noteAt = new Map<number, string | undefined>()
      let latest: string | undefined
      messages.forEach((message, index) => {
        feed(digest, message)
        if (message._tag !== "UserMessage") return
        const key = digest.copy().digest("base64")
        // Asked now: no note when the clock still reads what the conversation's last note says.
        const ask = () => remember(key, latest === fresh ? noNote : fresh)
        const note = index !== newest ? recall(key) : index === messages.length - 1 ? ask() : recall(key) ?? ask()
        noteAt.set(index, note)
        if (note !== undefined && note !== noNote) latest = note
      })
      return withClockNotes(messages, (index) => noteAt.get(index))
    }
  }
}
