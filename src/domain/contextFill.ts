/**
 * How full a model's context is, from what a turn reported, and when a
 * conversation is full enough to compress before it overflows.
 *
 * @module
 */
import type { Usage } from "./ModelEvent.js"

/**
 * The share of the context a model turn may fill before the chat compresses
 * the conversation by itself, ahead of the next turn: 0.85 leaves room for
 * the recap request and a reply, and for a new question after it.
 */
export const autoCompressShare = 0.85

/** The share of the context the turn filled (prompt and reply), 0 to 1; none when the backend did not say. */
export const contextFill = (usage: Usage): number | undefined =>
  usage.contextUsed === undefined || usage.contextSize === undefined || usage.contextSize <= 0
    ? undefined
    : usage.contextUsed / usage.contextSize
