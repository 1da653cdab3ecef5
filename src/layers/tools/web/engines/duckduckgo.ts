/**
 * DuckDuckGo's two script-free front ends: the HTML one
 * (`html.duckduckgo.com/html/`, a `div.result` per result with an
 * `a.result__a` title link and a `.result__snippet`) and the lite one
 * (`lite.duckduckgo.com/lite/`, a table whose rows alternate an
 * `a.result-link` and a `td.result-snippet`). Both wrap result links as
 * `//duckduckgo.com/l/?uddg=<url>`.
 *
 * @module
 */
import { findAll, findFirst, hasAncestor, hasClass, parseTree, textOf, walk } from "../dom.js"
import { absoluteHttp, containerBudget, joinBase, maxCandidates, ResultList, type SearchEngine, urlParam } from "../engine.js"

/** The target of a DuckDuckGo redirect link (`/l/?uddg=…`), or the link itself. */
export const unwrapDuckDuckGo = (href: string | undefined, pageUrl: string): URL | undefined => {
  const url = absoluteHttp(href, pageUrl)
  if (url === undefined) return undefined
  if (url.pathname === "/l/" || url.pathname === "/l") return urlParam(url, "uddg")
  return url
}

const isAd = (href: string | undefined): boolean => href !== undefined && href.includes("duckduckgo.com/y.js")

/** `ddg`: html.duckduckgo.com. */
export const ddg: SearchEngine = {
  name: "ddg",
  defaultBaseUrl: "https://html.duckduckgo.com",
  searchUrl: (base, query) => joinBase(base, `/html/?q=${encodeURIComponent(query)}`),
  extract: (html, pageUrl) => {
    const list = new ResultList()
    const containers = findAll(parseTree(html), (el) => hasClass(el, "result") && !hasClass(el, "result--ad"), maxCandidates)
    for (const container of containers) {
      if (list.full) break
      const link = findFirst(container, (el) => el.name === "a" && hasClass(el, "result__a"), containerBudget)
      if (link === undefined || isAd(link.attribs["href"])) continue
      const snippet = findFirst(container, (el) => hasClass(el, "result__snippet"), containerBudget)
      list.add(textOf(link, 200), unwrapDuckDuckGo(link.attribs["href"], pageUrl), snippet === undefined ? "" : textOf(snippet, 300))
    }
    return list.results
  }
}

/** `ddg-lite`: lite.duckduckgo.com. */
export const ddgLite: SearchEngine = {
  name: "ddg-lite",
  defaultBaseUrl: "https://lite.duckduckgo.com",
  searchUrl: (base, query) => joinBase(base, `/lite/?q=${encodeURIComponent(query)}`),
  extract: (html, pageUrl) => {
    const list = new ResultList()
    let seen = 0
    walk(parseTree(html), (node) => {
      if (typeof node === "string" || list.full || seen > maxCandidates) return list.full ? "stop" : "continue"
      if (node.name === "a" && hasClass(node, "result-link")) {
        seen++
        const sponsored = isAd(node.attribs["href"]) ||
          hasAncestor(node, (el) => hasClass(el, "result-sponsored"), 8)
        if (!sponsored) list.add(textOf(node, 200), unwrapDuckDuckGo(node.attribs["href"], pageUrl), "")
        return "skip"
      }
      if (hasClass(node, "result-snippet")) {
        list.snippetForLast(textOf(node, 300))
        return "skip"
      }
    })
    return list.results
  }
}
