/**
 * The on-disk format of a memory entry: a `keywords:` header line, a blank
 * line, the body verbatim. Only the file store reads and writes it.
 *
 * @module
 */
import { splitWords } from "../../domain/words.js"

/** The first line of an entry file. */
export const headerLine = (keywords: ReadonlyArray<string>): string => `keywords: ${keywords.join(" ")}`

/** An entry file's text: the `keywords:` header, a blank line, the body. */
export const renderEntry = (keywords: ReadonlyArray<string>, body: string): string =>
  `${headerLine(keywords)}\n\n${body}`

/** A parsed entry file. */
export interface ParsedEntry {
  /** The keywords the header lists (informational: the file name is the identity). */
  readonly headerKeywords: ReadonlyArray<string>
  /** How many characters precede the body (header line, its newline, one blank line). */
  readonly bodyStart: number
  readonly body: string
}

/** A header's keyword list is split on spaces, tabs and commas. */
const isKeywordSeparator = (char: string): boolean => char === " " || char === "\t" || char === ","

/**
 * Parses an entry file: a first line `keywords: a b c` (commas allowed, as
 * operators write them by hand), then one optional blank line, then the
 * body verbatim. A file without the header is not an entry.
 */
export const parseEntry = (text: string): ParsedEntry | undefined => {
  const lineEnd = text.indexOf("\n")
  const first = lineEnd === -1 ? text : text.slice(0, lineEnd)
  const line = first.endsWith("\r") ? first.slice(0, -1) : first
  if (!line.startsWith("keywords:")) return undefined
  const headerKeywords = splitWords(line.slice("keywords:".length), isKeywordSeparator)
  if (lineEnd === -1) return { headerKeywords, bodyStart: text.length, body: "" }
  let bodyStart = lineEnd + 1
  if (text.startsWith("\r\n", bodyStart)) bodyStart += 2
  else if (text.startsWith("\n", bodyStart)) bodyStart += 1
  return { headerKeywords, bodyStart, body: text.slice(bodyStart) }
}
