/**
 * The fetch operation: a URL to readable text. HTML is converted, text is
 * passed through, binary content is refused; the result says where the
 * content came from and whether it was cut.
 *
 * @module
 */
import { Effect } from "effect"
import { WebError } from "./errors.js"
import { decodeBody, type Fetcher } from "./http.js"
import { htmlToText, type PageLink } from "./html.js"
import { maxCharsLimit } from "./options.js"
import { looksBinary, looksLikeHtml } from "./text.js"

/** A fetched page as text. */
export interface Page {
  /** The URL that answered, after redirects. */
  readonly url: string
  /** The URLs that redirected to it, in order. */
  readonly redirects: ReadonlyArray<string>
  /** The declared media type ("" when none was declared). */
  readonly mediaType: string
  /** Whether the body was converted from HTML. */
  readonly html: boolean
  readonly title: string
  readonly text: string
  readonly links: ReadonlyArray<PageLink>
  /** Bytes of the body read. */
  readonly bytesRead: number
  /** The body was longer than the byte cap; only `bytesRead` bytes were read. */
  readonly truncated: boolean
}

/** Reads a URL as text. */
export type ReadPage = (url: string) => Effect.Effect<Page, WebError>

/** Line breaks as "\n". */
const normalizeNewlines = (text: string): string => text.split("\r\n").join("\n").split("\r").join("\n")

/** The fetch operation over `fetcher`. */
export const makeReadPage = (fetcher: Fetcher): ReadPage => (raw) =>
  Effect.gen(function*() {
    const body = yield* fetcher(raw)
    if (body.kind !== "html" && looksBinary(body.bytes)) {
      const declared = body.mediaType === "" ? "no declared content type" : `content type ${body.mediaType}`
      return yield* new WebError({
        reason: "Unsupported",
        url: body.url,
        detail: `${body.url} has ${declared} and its bytes are binary: only HTML and text content can be read`
      })
    }
    const decoded = decodeBody(body.bytes, body.charset)
    const html = body.kind === "html" || (body.kind === "unknown" && looksLikeHtml(decoded))
    const readable = html ? htmlToText(decoded, body.url) : { title: "", text: normalizeNewlines(decoded).trim(), links: [] }
    return {
      url: body.url,
      redirects: body.redirects,
      mediaType: body.mediaType,
      html,
      title: readable.title,
      text: readable.text,
      links: readable.links,
      bytesRead: body.bytes.length,
      truncated: body.truncated
    }
  })

/** The note that ends a page whose body was cut at the byte cap. */
export const byteCapNote = (bytes: number): string =>
  `[truncated: the page is larger than ${bytes} bytes; only the first ${bytes} bytes were read]`

/**
 * A page as the model reads it: where it came from, its title, its text
 * (at most `maxChars` characters, cut at a line break when one is near),
 * and notes on anything cut.
 */
export const renderPage = (page: Page, maxChars: number): string => {
  const header = [`URL: ${page.url}`]
  if (page.redirects.length > 0) header.push(`Redirected from: ${page.redirects.join(" -> ")}`)
  if (page.title !== "") header.push(`Title: ${page.title}`)
  header.push(`Content-Type: ${page.mediaType === "" ? "(not declared)" : page.mediaType}`)
  let text = page.text
  const notes: Array<string> = []
  if (text.length > maxChars) {
    const lineEnd = text.lastIndexOf("\n", maxChars)
    const end = lineEnd > maxChars * 0.8 ? lineEnd : maxChars
    notes.push(
      `[cut: showing the first ${end} of ${text.length} characters; ask for more with max_chars (up to ${maxCharsLimit})]`
    )
    text = text.slice(0, end).trimEnd()
  }
  if (page.truncated) notes.push(byteCapNote(page.bytesRead))
  const body = text === ""
    ? page.html
      ? "(the page has no readable text; it may be built by JavaScript, which is not run)"
      : "(the response is empty)"
    : text
  return [header.join("\n"), body, ...notes].join("\n\n")
}
