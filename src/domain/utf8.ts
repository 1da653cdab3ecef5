/**
 * Sizes of text as it is stored and sent: UTF-8 bytes, the unit every cap
 * (memory entries, addenda, manifests, skills) is counted in.
 *
 * @module
 */

/** The UTF-8 size of `text`, in bytes; a lone surrogate counts as U+FFFD (3 bytes), as it is written. */
export const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8")
