/**
 * HTML as a stream of open-tag, text and close-tag events, in time linear
 * in the input however it is nested.
 *
 * htmlparser2's `Parser` keeps its open elements in an array it grows with
 * `unshift` and searches with `indexOf`, so each tag costs time in
 * proportion to the nesting depth: 100 000 unclosed `<b>` tags take
 * minutes. This module drives htmlparser2's `Tokenizer` (linear, and the
 * part that knows HTML's lexical rules: raw-text `<script>`/`<style>`,
 * entities, attributes) and keeps the open elements itself: a stack grown
 * at its end and a count per element name, so every open and every close
 * costs amortised constant time. Tree rules follow the `Parser`'s HTML
 * mode: void elements, implied closes (`<p>` closes an open `<p>`, `<li>`
 * an open `<li>`, …), `</p>` and `</br>` without a matching open, and
 * self-closing tags inside `<svg>`/`<math>`.
 *
 * @module
 */
import { Tokenizer, type TokenizerCallbacks } from "htmlparser2"

/** What the markup stream reports. Every opened element is closed, in order. */
export interface MarkupHandler {
  /** An element starts; `name` is lower case. */
  readonly onopentag: (name: string, attribs: Readonly<Record<string, string>>) => void
  /** Text, entities decoded (raw for `<script>` and `<style>`). */
  readonly ontext: (text: string) => void
  /** An element ends, explicitly or by implication. */
  readonly onclosetag: (name: string) => void
}

const voidElements = new Set([
  "area",
  "base",
  "basefont",
  "br",
  "col",
  "command",
  "embed",
  "frame",
  "hr",
  "img",
  "input",
  "isindex",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr"
])

const formTags = new Set(["input", "option", "optgroup", "select", "button", "datalist", "textarea"])
const pTag = new Set(["p"])
const headingTags = new Set(["h1", "h2", "h3", "h4", "h5", "h6", "p"])
const tableSectionTags = new Set(["thead", "tbody"])
const ddtTags = new Set(["dd", "dt"])
const rtpTags = new Set(["rt", "rp"])

/** Which open elements (at the top of the stack) an opening tag closes. */
const openImpliesClose = new Map<string, ReadonlySet<string>>([
  ["tr", new Set(["tr", "th", "td"])],
  ["th", new Set(["th"])],
  ["td", new Set(["thead", "th", "td"])],
  ["body", new Set(["head", "link", "script"])],
  ["a", new Set(["a"])],
  ["li", new Set(["li"])],
  ["p", pTag],
  ["h1", headingTags],
  ["h2", headingTags],
  ["h3", headingTags],
  ["h4", headingTags],
  ["h5", headingTags],
  ["h6", headingTags],
  ["select", formTags],
  ["input", formTags],
  ["output", formTags],
  ["button", formTags],
  ["datalist", formTags],
  ["textarea", formTags],
  ["option", new Set(["option"])],
  ["optgroup", new Set(["optgroup", "option"])],
  ["dd", ddtTags],
  ["dt", ddtTags],
  ["address", pTag],
  ["article", pTag],
  ["aside", pTag],
  ["blockquote", pTag],
  ["details", pTag],
  ["div", pTag],
  ["dl", pTag],
  ["fieldset", pTag],
  ["figcaption", pTag],
  ["figure", pTag],
  ["footer", pTag],
  ["form", pTag],
  ["header", pTag],
  ["hr", pTag],
  ["main", pTag],
  ["nav", pTag],
  ["ol", pTag],
  ["pre", pTag],
  ["section", pTag],
  ["table", pTag],
  ["ul", pTag],
  ["rt", rtpTags],
  ["rp", rtpTags],
  ["tbody", tableSectionTags],
  ["tfoot", tableSectionTags]
])

const foreignRoots = new Set(["svg", "math"])
const integrationPoints = new Set(["mi", "mo", "mn", "ms", "mtext", "annotation-xml", "foreignobject", "desc", "title"])

/** Streams the events of an HTML document to `handler`. Never throws on malformed input. */
export const parseMarkup = (html: string, handler: MarkupHandler): void => {
  const stack: Array<string> = []
  const openCounts = new Map<string, number>()
  const foreign: Array<boolean> = [] // per open svg/math (true) or integration point (false)
  let tagName = ""
  let attribs: Record<string, string> | undefined
  let attribName = ""
  let attribValue = ""

  const inForeign = (): boolean => foreign[foreign.length - 1] === true
  const slice = (start: number, end: number): string => html.slice(start, end)

  const push = (name: string): void => {
    stack.push(name)
    openCounts.set(name, (openCounts.get(name) ?? 0) + 1)
    if (foreignRoots.has(name)) foreign.push(true)
    else if (integrationPoints.has(name) && foreign.length > 0) foreign.push(false)
  }

  const pop = (): string | undefined => {
    const name = stack.pop()
    if (name === undefined) return undefined
    openCounts.set(name, (openCounts.get(name) ?? 1) - 1)
    if (foreignRoots.has(name) || (integrationPoints.has(name) && foreign.length > 0)) foreign.pop()
    handler.onclosetag(name)
    return name
  }

  const emitOpenTag = (name: string): void => {
    tagName = name
    if (name === "form" && (openCounts.get("form") ?? 0) > 0) {
      // A second <form> inside a form is ignored, as the HTML spec says.
      tagName = ""
      attribs = undefined
      return
    }
    const closes = openImpliesClose.get(name)
    if (closes !== undefined) {
      for (let top = stack[stack.length - 1]; top !== undefined && closes.has(top); top = stack[stack.length - 1]) pop()
    }
    if (!voidElements.has(name)) push(name)
    attribs = Object.create(null) // a prototype-less record: attribute names like "__proto__" stay plain keys
  }

  const endOpenTag = (): void => {
    if (attribs !== undefined) {
      handler.onopentag(tagName, attribs)
      attribs = undefined
      if (voidElements.has(tagName)) handler.onclosetag(tagName)
    }
    tagName = ""
  }

  const closeCurrentTag = (): void => {
    const name = tagName
    endOpenTag()
    if (name !== "" && stack[stack.length - 1] === name) pop()
  }

  const readTagName = (start: number, end: number): string => {
    const name = slice(start, end).toLowerCase()
    return name === "image" && !inForeign() ? "img" : name
  }

  const callbacks: TokenizerCallbacks = {
    onopentagname: (start, end) => emitOpenTag(readTagName(start, end)),
    onopentagend: () => endOpenTag(),
    onselfclosingtag: () => (inForeign() ? closeCurrentTag() : endOpenTag()),
    onclosetag: (start, end) => {
      const name = readTagName(start, end)
      if (voidElements.has(name)) {
        if (name === "br") {
          handler.onopentag("br", {})
          handler.onclosetag("br")
        }
        return
      }
      if ((openCounts.get(name) ?? 0) > 0) {
        for (let closed = pop(); closed !== undefined && closed !== name; closed = pop()) {
          // closes every element opened inside the one this tag ends
        }
      } else if (name === "p") {
        emitOpenTag("p")
        closeCurrentTag()
      }
    },
    onattribname: (start, end) => {
      attribName = slice(start, end).toLowerCase()
    },
    onattribdata: (start, end) => {
      attribValue += slice(start, end)
    },
    onattribentity: (codepoint) => {
      attribValue += String.fromCodePoint(codepoint)
    },
    onattribend: () => {
      if (attribs !== undefined && !Object.hasOwn(attribs, attribName)) attribs[attribName] = attribValue
      attribValue = ""
    },
    ontext: (start, end) => {
      if (end > start) handler.ontext(slice(start, end))
    },
    ontextentity: (codepoint) => handler.ontext(String.fromCodePoint(codepoint)),
    oncdata: (start, end, offset) => {
      if (inForeign()) handler.ontext(slice(start, end - offset))
    },
    oncomment: () => {},
    ondeclaration: () => {},
    onprocessinginstruction: () => {},
    onend: () => {
      while (stack.length > 0) pop()
    },
    isInForeignContext: inForeign
  }

  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks)
  tokenizer.write(html)
  tokenizer.end()
}
