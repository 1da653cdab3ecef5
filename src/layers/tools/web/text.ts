/**
 * Character-level helpers for text that came off the network. Plain loops,
 * no regular expressions: their cost is linear in the input, whatever the
 * input is.
 *
 * @module
 */

/** Whether a UTF-16 code unit is whitespace as HTML and Unicode see it. */
export const isSpace = (code: number): boolean =>
  code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f ||
  code === 0x205f || code === 0x3000 || code === 0xfeff

/** Runs of whitespace become one space; leading and trailing whitespace is dropped. */
export const collapseWhitespace = (text: string): string => {
  const out: Array<string> = []
  let start = -1
  let pendingSpace = false
  for (let i = 0; i <= text.length; i++) {
    const space = i === text.length || isSpace(text.charCodeAt(i))
    if (space) {
      if (start >= 0) {
        if (pendingSpace && out.length > 0) out.push(" ")
        out.push(text.slice(start, i))
        start = -1
      }
      pendingSpace = true
    } else if (start < 0) {
      start = i
    }
  }
  return out.join("")
}

/** At most `max` characters; a cut ends with "…". Never splits a surrogate pair. */
export const clip = (text: string, max: number): string => {
  if (text.length <= max) return text
  let end = Math.max(0, max - 1)
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end -= 1
  return `${text.slice(0, end).trimEnd()}…`
}

/** Whether the bytes look binary: a NUL, or many control bytes, in the first 4 KiB. */
export const looksBinary = (bytes: Uint8Array): boolean => {
  const end = Math.min(bytes.length, 4096)
  let control = 0
  for (let i = 0; i < end; i++) {
    const byte = bytes[i] ?? 0
    if (byte === 0) return true
    if (byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b)) control++
  }
  return end > 0 && control / end > 0.1
}

/** Whether the decoded start of a body looks like an HTML document. */
export const looksLikeHtml = (text: string): boolean => {
  const head = text.slice(0, 1024).trimStart().toLowerCase()
  return head.startsWith("<!doctype html") || head.startsWith("<html") || head.includes("<html") ||
    head.includes("<head") || head.includes("<body")
}
