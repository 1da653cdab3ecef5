/**
 * The clock notes of a server's (or a session's) conversations: the time
 * each user message was sent, remembered so that every later request of
 * that conversation renders the message with the same note and the prompt
 * stays byte-identical up to its newest turn.
 *
 * A message sent in the same minute as the conversation's last note gets
 * none: the last note still tells the time, and a quick exchange does not
 * pay a note's tokens on every turn. A message sent on the day of the last
 * note gets the time of day alone (`Sent: 14:05`), a third of the tokens.
 *
 * Clients send their history without notes (they never see them), so the
 * notes are keyed by what identifies a user message in its conversation:
 * a digest of every message up to and including it. The memory is bounded;
 * a forgotten note (an evicted or a restarted conversation) leaves that
 * message unstamped, which stays stable from then on; a time of day whose
 * day went with it is told in full from then on.
 *
 * @module
 */
import { Array as Arr, Option } from "effect"
import { createHash, type Hash } from "node:crypto"
import type { ChatMessage } from "../../domain/Message.js"
import { makeRecentMap } from "../../domain/recentMap.js"
import { type ClockReading, withClockNotes } from "../../domain/SystemPrompt.js"

/** How many user messages' notes are remembered: a few hundred long conversations. */
export const clockNotesCapacity = 4096

/** Remembers the clock note of each user message it stamps. */
export interface ClockNotes {
  /**
   * The conversation with its notes. The newest user message is stamped
   * with `now` when it is the last message (a new turn, or a turn asked
   * again): with nothing when the conversation's last note already says
   * that minute, with the time of day when it gave that day, in full
   * otherwise. It keeps what it got while the turn goes on (followed by
   * tool calls and results); every earlier user message gets the note it
   * was sent with, or none.
   */
  readonly stamp: (messages: ReadonlyArray<ChatMessage>, now: ClockReading) => ReadonlyArray<ChatMessage>
}

/** What a user message was stamped with: the note it carries (`""` for none), and the minute it tells. */
interface Stamp {
  readonly note: string
  readonly reading?: ClockReading
}

/** The stamp of a message sent at `now`, after a conversation whose last note told `latest`. */
const stampAt = (now: ClockReading, latest: ClockReading | undefined): Stamp =>
  latest?.full === now.full
    ? { note: "" }
    : { note: latest?.day === now.day ? now.timeOfDay : now.full, reading: now }

/** A message's contribution to the digest; the separator keeps boundaries unambiguous. */
const feed = (digest: Hash, message: ChatMessage): void => {
  digest.update(JSON.stringify(message))
  digest.update("\u0000")
}

/** A bounded memory of clock notes, least recently used first out. */
export const makeClockNotes = (capacity: number = clockNotesCapacity): ClockNotes => {
  const stamps = makeRecentMap<Stamp>(capacity)
  return {
    stamp: (messages, now) => {
      const newest = Option.getOrElse(Arr.findLastIndex(messages, (message) => message._tag === "UserMessage"), () => -1)
      const digest = createHash("sha256")
      const noteAt = new Map<number, string>()
      let latest: ClockReading | undefined
      messages.forEach((message, index) => {
        feed(digest, message)
        if (message._tag !== "UserMessage") return
        const key = digest.copy().digest("base64")
        const ask = () => stamps.set(key, stampAt(now, latest))
        let stamp = index !== newest ? stamps.get(key) : index === messages.length - 1 ? ask() : stamps.get(key) ?? ask()
        // A time of day needs its day told earlier in the prompt: when that note was forgotten, say it here.
        if (stamp?.reading !== undefined && stamp.note === stamp.reading.timeOfDay && latest?.day !== stamp.reading.day) {
          stamp = stamps.set(key, { note: stamp.reading.full, reading: stamp.reading })
        }
        if (stamp === undefined) return
        noteAt.set(index, stamp.note)
        latest = stamp.reading ?? latest
      })
      return withClockNotes(messages, (index) => noteAt.get(index))
    }
  }
}
