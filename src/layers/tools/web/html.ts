/**
 * HTML → readable text, on the linear-time event stream of `markup.ts`
 * (htmlparser2's tokenizer): headings,
 * paragraphs, list items and table rows keep their line structure, the
 * contents of script, style, noscript, template, svg and the like are
 * dropped, whitespace is collapsed, and the title and the page's links are
 * collected on the way.
 *
 * Nothing here recurses per nesting level: the event stream keeps its own
 * stack and this module keeps counters, so unclosed tags, megabytes of
 * inline script and a hundred thousand nested elements cost time linear in
 * the input.
 *
 * @module
 */
import { parseMarkup } from "./markup.js"
import { clip, collapseWhitespace, isSpace } from "./text.js"

/** A link of the page: its text and its absolute http(s) URL. */
export interface PageLink {
  readonly text: string
  readonly url: string
}

/** A page as text. */
export interface ReadablePage {
  /** The `<title>`, whitespace collapsed; "" when there is none. */
  readonly title: string
  /** The readable text, lines separated by "\n", paragraphs by a blank line. */
  readonly text: string
  /** The distinct http(s) links, in page order (at most {@link maxLinks}). */
  readonly links: ReadonlyArray<PageLink>
}

/** Links collected per page at most. */
export const maxLinks = 500

/** Elements whose content is never text for a reader. */
const skipped = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "iframe",
  "object",
  "canvas",
  "select",
  "datalist"
])

/** Elements that end a line. */
const lineBlocks = new Set([
  "div",
  "section",
  "article",
  "header",
  "footer",
  "main",
  "nav",
  "aside",
  "form",
  "fieldset",
  "figure",
  "figcaption",
  "address",
  "details",
  "summary",
  "dl",
  "dt",
  "dd",
  "tr",
  "caption",
  "label",
  "option",
  "legend"
])

/** Elements that stand apart with a blank line. */
const paragraphBlocks = new Set(["p", "blockquote", "pre", "table", "ul", "ol", "hr"])

const headingLevel = (name: string): number =>
  name.length === 2 && name[0] === "h" && name[1] !== undefined && name[1] >= "1" && name[1] <= "6" ? Number(name[1]) : 0

/**
 * Accumulates text: whitespace runs become one space, and line breaks
 * requested between pieces are merged (the strongest wins).
 */
class TextSink {
  private readonly parts: Array<string> = []
  private pendingBreak = 0
  private pendingSpace = false
  private pendingPrefix = ""
  private empty = true
  private lineStart = true

  /** Requests a line break (1) or a blank line (2) before the next text. */
  lineBreak(strength: 1 | 2): void {
    if (strength > this.pendingBreak) this.pendingBreak = strength
    this.pendingSpace = false
  }

  /** Text to put at the start of the next line's content, e.g. "- ". */
  prefix(text: string): void {
    this.pendingPrefix = text
  }

  /** A separator placed before the next text when the line already has some. */
  separator(text: string): void {
    if (!this.lineStart && this.pendingBreak === 0) {
      this.pendingSpace = false
      this.pendingPrefix = text
    }
  }

  private flush(): void {
    if (!this.empty && this.pendingBreak > 0) {
      this.parts.push(this.pendingBreak === 2 ? "\n\n" : "\n")
      this.lineStart = true
    } else if (this.pendingSpace && !this.lineStart) {
      this.parts.push(" ")
    }
    this.pendingBreak = 0
    this.pendingSpace = false
    if (this.pendingPrefix !== "") {
      this.parts.push(this.pendingPrefix)
      this.pendingPrefix = ""
    }
    this.empty = false
    this.lineStart = false
  }

  /** Flowing text: whitespace collapsed. */
  text(data: string): void {
    let start = -1
    for (let i = 0; i <= data.length; i++) {
      const space = i === data.length || isSpace(data.charCodeAt(i))
      if (!space) {
        if (start < 0) start = i
        continue
      }
      if (start >= 0) {
        this.flush()
        this.parts.push(data.slice(start, i))
        start = -1
      }
      if (i < data.length) this.pendingSpace = true
    }
  }

  /** Preformatted text: kept as it is. */
  verbatim(data: string): void {
    if (data === "") return
    this.flush()
    this.parts.push(data)
    const last = data.charCodeAt(data.length - 1)
    this.lineStart = last === 0x0a
  }

  toString(): string {
    return this.parts.join("").trim()
  }
}

const resolveHttp = (href: string, base: string): string | undefined => {
  const trimmed = href.trim()
  if (trimmed === "" || trimmed.startsWith("#") || !URL.canParse(trimmed, base)) return undefined
  const url = new URL(trimmed, base)
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  url.hash = ""
  return url.href
}

/**
 * Converts an HTML document to readable text. `pageUrl` resolves relative
 * links (a `<base href>` in the page takes over when it appears).
 */
export const htmlToText = (html: string, pageUrl: string): ReadablePage => {
  const sink = new TextSink()
  const links: Array<PageLink> = []
  const seenLinks = new Set<string>()
  const listCounters: Array<number> = [] // one entry per open list: -1 for <ul>, the next number for <ol>
  let base = pageUrl
  let skipDepth = 0
  let preDepth = 0
  let title: Array<string> | undefined
  let titleDone = false
  let cellsInRow = 0
  let anchor: { url: string | undefined; text: Array<string>; size: number } | undefined

  const closeAnchor = (): void => {
    if (anchor === undefined) return
    const url = anchor.url
    if (url !== undefined && !seenLinks.has(url) && links.length < maxLinks) {
      seenLinks.add(url)
      links.push({ url, text: clip(collapseWhitespace(anchor.text.join("")), 120) })
    }
    anchor = undefined
  }

  parseMarkup(html, {
    onopentag(name, attribs) {
      if (skipDepth > 0 || skipped.has(name)) {
        if (skipped.has(name)) skipDepth++
        return
      }
      if (name === "title") {
        if (!titleDone && title === undefined) title = []
        return
      }
      if (name === "base" && attribs["href"] !== undefined && URL.canParse(attribs["href"], pageUrl)) {
        base = new URL(attribs["href"], pageUrl).href
        return
      }
      if (name === "br") return sink.lineBreak(1)
      if (name === "pre") preDepth++
      const level = headingLevel(name)
      if (level > 0) {
        sink.lineBreak(2)
        sink.prefix(`${"#".repeat(level)} `)
      } else if (name === "li") {
        sink.lineBreak(1)
        const depth = Math.max(0, listCounters.length - 1)
        const counter = listCounters[listCounters.length - 1]
        const indent = "  ".repeat(depth)
        if (counter !== undefined && counter >= 0) {
          sink.prefix(`${indent}${counter}. `)
          listCounters[listCounters.length - 1] = counter + 1
        } else {
          sink.prefix(`${indent}- `)
        }
      } else if (name === "ul" || name === "ol") {
        sink.lineBreak(listCounters.length === 0 ? 2 : 1)
        const start = Number(attribs["start"])
        listCounters.push(name === "ol" ? (Number.isInteger(start) ? start : 1) : -1)
      } else if (paragraphBlocks.has(name)) {
        sink.lineBreak(2)
      } else if (lineBlocks.has(name)) {
        sink.lineBreak(1)
        if (name === "tr") cellsInRow = 0
      } else if (name === "td" || name === "th") {
        if (cellsInRow > 0) sink.separator(" | ")
        cellsInRow++
      } else if (name === "a") {
        closeAnchor()
        const href = attribs["href"]
        anchor = { url: href === undefined ? undefined : resolveHttp(href, base), text: [], size: 0 }
      } else if (name === "img") {
        const alt = collapseWhitespace(attribs["alt"] ?? "")
        if (alt !== "") sink.text(` [${clip(alt, 120)}] `)
      }
    },
    ontext(data) {
      if (skipDepth > 0) return
      if (title !== undefined && !titleDone) {
        title.push(data)
        return
      }
      if (preDepth > 0) sink.verbatim(data)
      else sink.text(data)
      if (anchor !== undefined && anchor.size < 1000) {
        anchor.text.push(data)
        anchor.size += data.length
      }
    },
    onclosetag(name) {
      if (skipped.has(name)) {
        if (skipDepth > 0) skipDepth--
        return
      }
      if (skipDepth > 0) return
      if (name === "title") {
        if (title !== undefined) titleDone = true
        return
      }
      if (name === "pre" && preDepth > 0) preDepth--
      if (name === "a") closeAnchor()
      if (name === "ul" || name === "ol") {
        listCounters.pop()
        sink.lineBreak(listCounters.length === 0 ? 2 : 1)
      } else if (headingLevel(name) > 0 || paragraphBlocks.has(name)) {
        sink.lineBreak(2)
      } else if (lineBlocks.has(name) || name === "li") {
        sink.lineBreak(1)
      }
    }
  })
  closeAnchor()
  return { title: clip(collapseWhitespace((title ?? []).join("")), 300), text: sink.toString(), links }
}
