/**
 * Google (`www.google.com/search`). Its class names are generated and
 * change, so results are recognised by shape: a link that contains an
 * `h3` is a result, its `h3` is the title, and the first snippet-like
 * block after the link (classes `VwiC3b`, `s3v9rd`, `st`, `IsZvec`, or a
 * `data-sncf` attribute) is the snippet. Links may be wrapped as
 * `/url?q=<url>`. Google also links to itself (more searches, images);
 * those are dropped.
 *
 * @module
 */
import { classes, type Element, isInside, parseTree, textOf, walk } from "../dom.js"
import { absoluteHttp, joinBase, maxCandidates, ResultList, type SearchEngine, urlParam } from "../engine.js"

const snippetClasses = new Set(["VwiC3b", "s3v9rd", "st", "IsZvec", "lEBKkf"])

/** The target of a Google redirect link (`/url?q=…`), or the link itself. */
export const unwrapGoogle = (href: string | undefined, pageUrl: string): URL | undefined => {
  const url = absoluteHttp(href, pageUrl)
  if (url === undefined || url.pathname !== "/url") return url
  return urlParam(url, "q") ?? urlParam(url, "url")
}

/** The `h3` inside a link, looking at a bounded number of nodes. */
const headingIn = (link: Element): Element | undefined => {
  let heading: Element | undefined
  walk(link, (node) => {
    if (typeof node !== "string" && node.name === "h3") {
      heading = node
      return "stop"
    }
  }, 200)
  return heading
}

const isSnippet = (el: Element): boolean =>
  el.attribs["data-sncf"] !== undefined || classes(el).some((name) => snippetClasses.has(name))

/** `google`: www.google.com. */
export const google: SearchEngine = {
  name: "google",
  defaultBaseUrl: "https://www.google.com",
  searchUrl: (base, query) => joinBase(base, `/search?q=${encodeURIComponent(query)}&hl=en&ie=UTF-8`),
  extract: (html, pageUrl) => {
    const list = new ResultList()
    const page = new URL(pageUrl)
    let current: { link: Element; hasSnippet: boolean } | undefined
    let seen = 0
    walk(parseTree(html), (node) => {
      if (typeof node === "string") return
      if (list.full || seen > maxCandidates) return "stop"
      if (node.name === "a") {
        const heading = headingIn(node)
        if (heading === undefined) return
        seen++
        const url = unwrapGoogle(node.attribs["href"], pageUrl)
        const internal = url === undefined || url.host === page.host || url.hostname === "google.com" ||
          url.hostname.endsWith(".google.com")
        current = !internal && list.add(textOf(heading, 200), url, "") ? { link: node, hasSnippet: false } : undefined
        return "skip"
      }
      if (current !== undefined && !current.hasSnippet && isSnippet(node) && !isInside(node, current.link)) {
        const text = textOf(node, 300)
        if (text !== "") {
          list.snippetForLast(text)
          current.hasSnippet = true
          return "skip"
        }
      }
    })
    return list.results
  }
}
