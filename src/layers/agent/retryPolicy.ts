/**
 * When the loop throws a model turn away and asks again.
 *
 * - Thought-only: the model reasoned, then stopped without answering or
 *   calling a tool. Retried (the sampling differs), then its reasoning is
 *   promoted to the answer so the person never sees an empty reply.
 * - Incomplete: the stream broke after reasoning only (or nothing), before
 *   any answer text or tool call. Asked again; then the failure stands.
 * - Announce-only: the model said it would use a tool ("Let me search…")
 *   without calling it. Retried with a corrective message; weak and heavily
 *   quantized models then do make the call.
 *
 * @module
 */
import type { TurnSummary } from "./modelTurn.js"
import { splitWords } from "../../domain/words.js"

/** Retries of a thought-only turn before its reasoning becomes the answer. */
export const maxThoughtRetries = 2

/** Retries of a turn whose stream broke before any answer text or tool call (the reference's retry_on_incomplete). */
export const maxIncompleteRetries = 2

/** Retries of an announce-only turn before it is accepted as the answer. */
export const maxAnnounceRetries = 10

/** The synthetic user message sent after an announce-only turn. */
export const announceCorrection =
  "You announced a tool call but did not make one. Do not announce: call the tool now, in this turn, " +
  "or give your final answer."

/** What a model turn amounts to. */
export type Verdict = "ToolCalls" | "Answer" | "ThoughtOnly" | "AnnounceOnly"

/** Classifies a finished model turn. Announcements only count when tools exist. */
export const classify = (turn: TurnSummary, toolsAvailable: boolean): Verdict => {
  if (turn.toolCalls.length > 0) return "ToolCalls"
  if (turn.text.trim() === "" && turn.reasoning.trim() !== "") return "ThoughtOnly"
  if (toolsAvailable && looksLikeAnnouncement(turn.text)) return "AnnounceOnly"
  return "Answer"
}

const openers = [
  "let me ",
  "i'll ",
  "i will ",
  "i'm going to ",
  "i am going to ",
  "i need to ",
  "let's ",
  "first, let me ",
  "first, i'll ",
  "now let me ",
  "now i'll ",
  "okay, let me ",
  "ok, let me ",
  "sure, let me ",
  "sure! let me ",
  "alright, let me "
]

/** Words that may stand between the opener and the verb ("let me quickly check"). */
const fillers = new Set(["quickly", "now", "first", "just", "go", "ahead", "and", "also", "then", "try", "to"])

const actionVerbs = new Set([
  "search",
  "look",
  "check",
  "find",
  "fetch",
  "read",
  "open",
  "call",
  "use",
  "run",
  "query",
  "browse",
  "get",
  "calculate",
  "compute",
  "write",
  "create",
  "list",
  "verify",
  "execute",
  "load",
  "save",
  "inspect",
  "grab",
  "pull",
  "consult"
])

/** Longest text still taken for an announcement rather than an answer. */
const announcementMaxLength = 240

/** Words of lower-cased text are runs of letters and apostrophes. */
const words = (text: string): ReadonlyArray<string> =>
  splitWords(text, (char) => !((char >= "a" && char <= "z") || char === "'"))

/**
 * Whether a short reply only announces an action: it opens like "Let me …"
 * or "I'll …" and its next real word is an action verb ("search", "check",
 * "look" …). Scans forward over the text; no regular expressions over model
 * output.
 */
export const looksLikeAnnouncement = (text: string): boolean => {
  const normalized = text.trim().toLowerCase().replaceAll("\u2019", "'")
  if (normalized === "" || normalized.length > announcementMaxLength) return false
  const opener = openers.find((candidate) => normalized.startsWith(candidate))
  if (opener === undefined) return false
  const verb = words(normalized.slice(opener.length)).find((word) => !fillers.has(word))
  return verb !== undefined && actionVerbs.has(verb)
}
