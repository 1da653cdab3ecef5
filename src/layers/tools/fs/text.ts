/**
 * Bytes and lines: counting, decoding, numbering and clipping file text
 * without regular expressions.
 *
 * @module
 */

const newline = 10
const utf8 = new TextDecoder("utf-8")

/** Decodes UTF-8, replacing invalid sequences. */
export const decode = (bytes: Uint8Array): string => utf8.decode(bytes)

/** The number of `\n` bytes in `bytes[from, to)`. */
export const countNewlines = (bytes: Uint8Array, from = 0, to = bytes.length): number => {
  let count = 0
  let at = bytes.indexOf(newline, from)
  while (at !== -1 && at < to) {
    count++
    at = bytes.indexOf(newline, at + 1)
  }
  return count
}

/**
 * Whether bytes look binary: a NUL among them, as grep decides. Callers pass
 * what they are about to show, so binary content after a text head is seen.
 */
export const looksBinary = (bytes: Uint8Array): boolean => bytes.includes(0)

/** A line without its trailing carriage return. */
export const withoutCr = (line: string): string => (line.endsWith("\r") ? line.slice(0, -1) : line)

/** Splits text into lines; a final newline ends the last line rather than starting an empty one. */
export const splitLines = (text: string): ReadonlyArray<string> => {
  if (text === "") return []
  const body = text.endsWith("\n") ? text.slice(0, -1) : text
  return body.split("\n").map(withoutCr)
}

/** Lines prefixed `<n>|`, numbered from `first`. */
export const numbered = (lines: ReadonlyArray<string>, first: number): string =>
  lines.map((line, i) => `${first + i}|${line}`).join("\n")

/** The number of lines in text of `size` bytes holding `newlines` newlines and ending in `lastByte`. */
export const lineTotal = (size: number, newlines: number, lastByte: number | undefined): number =>
  size === 0 ? 0 : lastByte === newline ? newlines : newlines + 1

/** `text` cut to at most `maxBytes` of UTF-8, never inside a character. */
export const clipUtf8 = (text: string, maxBytes: number): { readonly text: string; readonly clipped: boolean } => {
  const bytes = Buffer.from(text, "utf-8")
  if (bytes.length <= maxBytes) return { text, clipped: false }
  let end = maxBytes
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end-- // back up to the first byte of a character
  return { text: bytes.subarray(0, end).toString("utf-8"), clipped: true }
}

/** `count` with its noun, singular or plural. */
export const plural = (count: number, noun: string, nouns = `${noun}s`): string =>
  `${count} ${count === 1 ? noun : nouns}`
