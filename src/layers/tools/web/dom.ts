/**
 * A light element tree for reading search result pages, built from the
 * linear-time event stream of `markup.ts` (htmlparser2's tokenizer), and
 * the traversals over it. Every walk
 * keeps an explicit stack: no recursion per nesting level, so a hostile
 * page ten thousand levels deep cannot overflow the call stack. Script and
 * style contents are not kept.
 *
 * @module
 */
import { parseMarkup } from "./markup.js"
import { clip, collapseWhitespace, isSpace } from "./text.js"

/** An element: its name (lower case), attributes, children and parent. */
export interface Element {
  readonly name: string
  readonly attribs: Readonly<Record<string, string>>
  readonly children: Array<Node>
  readonly parent: Element | undefined
}

/** A node: an element or a run of text. */
export type Node = Element | string

const dropped = new Set(["script", "style", "noscript", "template", "svg"])

/** Parses HTML into a tree under a synthetic `#root` element. */
export const parseTree = (html: string): Element => {
  const root: Element = { name: "#root", attribs: {}, children: [], parent: undefined }
  let current = root
  let dropDepth = 0
  parseMarkup(html, {
    onopentag(name, attribs) {
      if (dropDepth > 0 || dropped.has(name)) {
        if (dropped.has(name)) dropDepth++
        return
      }
      const element: Element = { name, attribs, children: [], parent: current }
      current.children.push(element)
      current = element
    },
    ontext(data) {
      if (dropDepth > 0) return
      const last = current.children.length - 1
      const previous = current.children[last]
      if (typeof previous === "string") current.children[last] = previous + data
      else current.children.push(data)
    },
    onclosetag(name) {
      if (dropped.has(name)) {
        if (dropDepth > 0) dropDepth--
        return
      }
      if (dropDepth > 0) return
      // The event stream closes every element it opened, implied closes included.
      if (current.parent !== undefined && current.name === name) current = current.parent
    }
  })
  return root
}

/** What a visitor tells the walk: go on, skip this element's children, or stop. */
export type Visit = "continue" | "skip" | "stop"

/**
 * Visits the descendants of `root` in document order (not `root` itself).
 * At most `budget` nodes are visited.
 */
export const walk = (root: Element, visit: (node: Node) => Visit | void, budget = Number.POSITIVE_INFINITY): void => {
  const stack: Array<Node> = []
  for (let i = root.children.length - 1; i >= 0; i--) {
    const child = root.children[i]
    if (child !== undefined) stack.push(child)
  }
  let visited = 0
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (++visited > budget) return
    const outcome = visit(node)
    if (outcome === "stop") return
    if (outcome === "skip" || typeof node === "string") continue
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i]
      if (child !== undefined) stack.push(child)
    }
  }
}

/**
 * The elements under `root` (document order) that satisfy `test`: at most
 * `limit` of them, looking at most at `budget` nodes.
 */
export const findAll = (
  root: Element,
  test: (element: Element) => boolean,
  limit = Number.POSITIVE_INFINITY,
  budget = Number.POSITIVE_INFINITY
): Array<Element> => {
  const found: Array<Element> = []
  walk(root, (node) => {
    if (typeof node !== "string" && test(node)) {
      found.push(node)
      if (found.length >= limit) return "stop"
    }
  }, budget)
  return found
}

/** The first element under `root` that satisfies `test`, looking at most at `budget` nodes. */
export const findFirst = (
  root: Element,
  test: (element: Element) => boolean,
  budget = Number.POSITIVE_INFINITY
): Element | undefined => findAll(root, test, 1, budget)[0]

const spacedElements = new Set(["br", "p", "div", "li", "td", "th", "tr", "h1", "h2", "h3", "h4", "h5", "h6"])

/** Nodes a text extraction looks at, at most. */
const textBudget = 20_000

/** The text under `element`, whitespace collapsed, at most `max` characters. */
export const textOf = (element: Element, max = 1000): string => {
  const parts: Array<string> = []
  let size = 0
  walk(element, (node) => {
    if (typeof node === "string") {
      parts.push(node)
      size += node.length
      return size > max * 4 ? "stop" : "continue"
    }
    if (spacedElements.has(node.name)) parts.push(" ")
  }, textBudget)
  return clip(collapseWhitespace(parts.join("")), max)
}

/** Whether the element's `class` attribute has `name` among its tokens. */
export const hasClass = (element: Element, name: string): boolean => classes(element).includes(name)

/** The tokens of the element's `class` attribute. */
export const classes = (element: Element): ReadonlyArray<string> => {
  const value = element.attribs["class"]
  if (value === undefined || value === "") return []
  const tokens: Array<string> = []
  let start = -1
  for (let i = 0; i <= value.length; i++) {
    const space = i === value.length || isSpace(value.charCodeAt(i))
    if (!space && start < 0) start = i
    else if (space && start >= 0) {
      tokens.push(value.slice(start, i))
      start = -1
    }
  }
  return tokens
}

/** Whether `element` has an ancestor satisfying `test`, looking at most `levels` up. */
export const hasAncestor = (element: Element, test: (element: Element) => boolean, levels = 64): boolean => {
  let current = element.parent
  for (let i = 0; i < levels && current !== undefined; i++, current = current.parent) {
    if (test(current)) return true
  }
  return false
}

/** Whether `element` lies inside `ancestor`, looking at most `levels` up. */
export const isInside = (element: Element, ancestor: Element, levels = 64): boolean =>
  hasAncestor(element, (candidate) => candidate === ancestor, levels)
